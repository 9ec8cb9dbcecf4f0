package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LlamaLogTest {

    @Test
    void piecesBecomeOneLineAndTheLastErrorIsKept() {
        LlamaLog.takeLastError();
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_ERROR, "failed to load ");
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_CONT, "model: ");
        assertEquals("", LlamaLog.takeLastError(), "no line yet: it has no newline");
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_CONT, "truncated\nnext");
        assertEquals("failed to load model: truncated", LlamaLog.takeLastError());
        assertEquals("", LlamaLog.takeLastError(), "taking clears it");
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_CONT, " piece\n");
        assertEquals("next piece", LlamaLog.takeLastError(), "CONT continues the previous level");
    }

    @Test
    void aNewLevelEndsAnUnfinishedLine() {
        LlamaLog.takeLastError();
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_INFO, "loading ....");
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_ERROR, "oops\n");
        assertEquals("oops", LlamaLog.takeLastError());
        LlamaLog.append(LlamaLog.GGML_LOG_LEVEL_WARN, "just a warning\n");
        assertEquals("", LlamaLog.takeLastError());
    }
}
