package forge.backend.llamacpp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.BackendException;
import forge.api.backend.ContextParams;
import forge.api.backend.FimTokens;
import forge.api.backend.LoadProgress;
import forge.api.backend.LoadedModel;
import forge.api.backend.ModelLoadParams;
import forge.api.backend.Vocabulary;
import forge.lib.gguf.synth.SynthSpec;
import forge.lib.gguf.synth.SynthVocabulary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The tokenizer, on llama.cpp's own vocab-only files and test vectors. */
class LlamaVocabularyTest {
    private static LoadedModel qwen;
    private static LoadedModel llama;

    @BeforeAll
    static void load() {
        qwen = vocabOnly("qwen2");
        llama = vocabOnly("llama-bpe");
    }

    @AfterAll
    static void close() {
        qwen.close();
        llama.close();
    }

    static LoadedModel vocabOnly(String name) {
        return LlamaHome.backend().load(new ModelLoadParams(LlamaHome.vocab(name), 0, true, true), LoadProgress.NONE);
    }

    private static Vocabulary vocab(String which) {
        return (which.equals("qwen2") ? qwen : llama).vocabulary();
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen2", "llama-bpe"})
    void roundTripsAsciiCjkAndEmoji(String which) {
        Vocabulary v = vocab(which);
        for (String text : List.of(
                "Hello world, this is ForgeLM.",
                "你好，世界！日本語のテキスト。",
                "llamas 🦙🦙 and thumbs 👍🏽 and flags 🇺🇦",
                "  leading spaces\tand\ttabs\n\nnewlines")) {
            int[] ids = v.tokenize(text, false, false);
            assertTrue(ids.length > 0);
            assertEquals(text, v.detokenize(ids, false, false), which);
            // The pieces concatenate to the text's bytes.
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            for (int id : ids) {
                bytes.writeBytes(v.piece(id, false));
            }
            assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), bytes.toByteArray(), which + ": " + text);
        }
    }

    @Test
    void aLongTextNeedsTheRetryPath() {
        String text = "零一二三四五六七八九".repeat(500);
        int[] ids = qwen.vocabulary().tokenize(text, false, false);
        assertEquals(text, qwen.vocabulary().detokenize(ids, false, false));
    }

    @Test
    void specialTokensParseOnlyWhenAsked() {
        Vocabulary v = qwen.vocabulary();
        int[] special = v.tokenize("<|im_start|>", false, true);
        assertEquals(1, special.length);
        assertTrue(v.tokenize("<|im_start|>", false, false).length > 1, "as plain text it is several tokens");
        assertEquals(special[0], v.tokenOf("<|im_start|>").orElseThrow());
        assertEquals("<|im_start|>", new String(v.piece(special[0], true), StandardCharsets.UTF_8));
        assertEquals(0, v.piece(special[0], false).length, "a special token renders as nothing unless asked");
        int[] chat = v.tokenize("<|im_start|>user\nHi<|im_end|>", false, true);
        assertEquals(special[0], chat[0]);
        assertEquals("<|im_start|>user\nHi<|im_end|>", v.detokenize(chat, false, true));
        assertEquals("user\nHi", v.detokenize(chat, false, false));
    }

    @Test
    void endOfGenerationAndBosEos() {
        Vocabulary v = qwen.vocabulary();
        int imEnd = v.tokenOf("<|im_end|>").orElseThrow();
        assertTrue(v.isEndOfGeneration(imEnd));
        assertTrue(v.isEndOfGeneration(v.eos().orElseThrow()));
        assertFalse(v.isEndOfGeneration(v.tokenize("Hello", false, false)[0]));
        assertFalse(v.isEndOfGeneration(-1));
        assertFalse(v.isEndOfGeneration(v.size()));
        assertEquals(151936, v.size(), "qwen2's vocabulary");

        Vocabulary l = llama.vocabulary();
        int bos = l.bos().orElseThrow();
        int[] ids = l.tokenize("Hello", true, false);
        assertEquals(bos, ids[0], "llama 3 adds BOS");
        assertEquals("<|begin_of_text|>", new String(l.piece(bos, true), StandardCharsets.UTF_8));
        assertTrue(l.isEndOfGeneration(l.tokenOf("<|eot_id|>").orElseThrow()));
    }

    @Test
    void aMultiByteCharacterCanBeSplitAcrossTokens() throws CharacterCodingException {
        Vocabulary v = qwen.vocabulary();
        // Rare characters that byte-level BPE spells byte by byte.
        String text = "𓀀𝕏𐍈龘";
        int[] ids = v.tokenize(text, false, false);
        List<byte[]> invalid = new ArrayList<>();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int id : ids) {
            byte[] piece = v.piece(id, false);
            all.writeBytes(piece);
            try {
                StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(piece));
            } catch (CharacterCodingException e) {
                invalid.add(piece);
            }
        }
        assertFalse(invalid.isEmpty(), "some piece is not valid UTF-8 on its own: " + Arrays.toString(ids));
        assertEquals(
                text,
                StandardCharsets.UTF_8
                        .newDecoder()
                        .decode(ByteBuffer.wrap(all.toByteArray()))
                        .toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen2", "llama-bpe"})
    void llamaCppsOwnTestVectors(String which) throws IOException {
        // The format of tests/test-tokenizer-0.cpp: inputs separated by "\n__ggml_vocab_test__\n",
        // one line of space-separated ids per input; no special tokens added or parsed.
        Path inp = Path.of(LlamaHome.vocab(which) + ".inp");
        Path out = Path.of(LlamaHome.vocab(which) + ".out");
        String raw = Files.readString(inp, StandardCharsets.UTF_8);
        List<String> inputs = new ArrayList<>(Arrays.asList(raw.split("\n__ggml_vocab_test__\n", -1)));
        if (inputs.getLast().isEmpty()) {
            inputs.removeLast();
        }
        List<String> outputs = Files.readAllLines(out, StandardCharsets.UTF_8);
        assertEquals(outputs.size(), inputs.size());
        assertTrue(inputs.size() >= 30, "a handful at least: " + inputs.size());
        Vocabulary v = vocab(which);
        for (int i = 0; i < inputs.size(); i++) {
            String o = outputs.get(i).strip();
            int[] expected = o.isEmpty()
                    ? new int[0]
                    : Arrays.stream(o.split(" ")).mapToInt(Integer::parseInt).toArray();
            assertArrayEquals(
                    expected, v.tokenize(inputs.get(i), false, false), which + " vector " + i + ": " + inputs.get(i));
        }
    }

    @Test
    void tokenIdsAreCheckedInJava() {
        Vocabulary v = qwen.vocabulary();
        assertThrows(BackendException.class, () -> v.piece(-1, false));
        assertThrows(BackendException.class, () -> v.piece(v.size(), true));
        assertThrows(BackendException.class, () -> v.detokenize(new int[] {1, 2, Integer.MAX_VALUE}, false, false));
        assertEquals("", v.detokenize(new int[0], false, false));
        assertArrayEquals(new int[0], v.tokenize("", false, false));
    }

    @Test
    void infoOfAVocabularyOnlyModel() {
        assertEquals("qwen2", qwen.info().architecture());
        assertEquals("llama", llama.info().architecture());
        assertEquals("qwen2", ((LlamaModel) qwen).metadata().get("general.architecture"));
        BackendException e = assertThrows(BackendException.class, () -> qwen.newContext(ContextParams.of(256, 1, 1)));
        assertTrue(e.getMessage().contains("vocabulary-only"), e.getMessage());
    }

    @Test
    void tokenizesFromManyThreadsAtOnce() throws Exception {
        Vocabulary v = qwen.vocabulary();
        String text = "The quick brown fox 跳过 the lazy dog 🐕 ".repeat(20);
        int[] expected = v.tokenize(text, false, false);
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<int[]>> results = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                results.add(pool.submit(() -> v.tokenize(text, false, false)));
            }
            for (Future<int[]> r : results) {
                assertArrayEquals(expected, r.get());
            }
        }
    }

    @Test
    void aClosedModelFailsCleanlyAndClosesOnce() {
        LoadedModel m = vocabOnly("qwen2");
        Vocabulary v = m.vocabulary();
        int hello = v.tokenize("Hello", false, false)[0];
        m.close();
        m.close();
        assertThrows(BackendException.class, () -> v.tokenize("Hello", false, false));
        assertThrows(BackendException.class, () -> v.detokenize(new int[] {hello}, false, false));
        assertThrows(BackendException.class, () -> v.isEndOfGeneration(hello));
        assertThrows(BackendException.class, () -> m.newContext(ContextParams.of(256, 1, 1)));
    }

    /**
     * A SentencePiece vocabulary without its byte tokens: llama.cpp's byte fallback would throw
     * inside llama_tokenize on text it has no piece for (and the JVM abort), so the model is refused
     * at load, naming the byte. llama.cpp's own SPM vocabulary, which has them, loads and spells
     * every byte.
     */
    @Test
    void aSentencePieceVocabularyThatCannotSpellEveryByteIsRefusedAtLoad(@org.junit.jupiter.api.io.TempDir Path dir) {
        try (LoadedModel spm = vocabOnly("llama-spm")) {
            int[] ids = spm.vocabulary().tokenize("\u0001 \u00ff \uD83D\uDE00 \u0915", false, false);
            assertTrue(ids.length > 0);
        }
        java.util.Map<String, forge.lib.gguf.GgufValue> metadata;
        try (forge.lib.gguf.GgufReader reader = forge.lib.gguf.GgufReader.open(LlamaHome.vocab("llama-spm"))) {
            metadata = new java.util.LinkedHashMap<>(reader.values(k -> true));
        }
        var tokens = (forge.lib.gguf.GgufValue.Array) metadata.get("tokenizer.ggml.tokens");
        List<String> renamed = tokens.strings().stream()
                .map(t -> t.matches("<0x[0-9A-F]{2}>") ? "<byte" + t.substring(3) : t)
                .toList();
        metadata.put("tokenizer.ggml.tokens", forge.lib.gguf.GgufValue.strings(renamed));
        Path broken = dir.resolve("no-bytes.gguf");
        new forge.lib.gguf.GgufWriter().putAll(metadata).write(broken);
        BackendException e = assertThrows(
                BackendException.class,
                () -> LlamaHome.backend().load(new ModelLoadParams(broken, 0, true, true), LoadProgress.NONE));
        assertTrue(e.getMessage().contains("no token for the byte 0x"), e.getMessage());
        assertTrue(e.getMessage().contains("no-bytes.gguf"), e.getMessage());
    }

    @Test
    void fimTokensComeFromTheFilesFimKeys() {
        SynthVocabulary coder = SynthVocabulary.generate(new SynthSpec.Generated("coder", 512));
        try (LoadedModel m = LlamaHome.backend()
                .load(new ModelLoadParams(LlamaHome.tinyModel("coder"), 0, true, true), LoadProgress.NONE)) {
            assertEquals(
                    Optional.of(new FimTokens(
                            coder.id("<|fim_prefix|>"),
                            coder.id("<|fim_suffix|>"),
                            coder.id("<|fim_middle|>"),
                            OptionalInt.of(coder.id("<|repo_name|>")),
                            OptionalInt.of(coder.id("<|file_sep|>")))),
                    m.vocabulary().fim());
        }
        try (LoadedModel m = LlamaHome.backend()
                .load(new ModelLoadParams(LlamaHome.tinyModel("qwen"), 0, true, true), LoadProgress.NONE)) {
            assertEquals(Optional.empty(), m.vocabulary().fim(), "no FIM tokens: no infill");
        }
    }

    @Test
    void whatTokenizingAddsIsTheVocabularys() {
        assertTrue(llama.vocabulary().addsBos());
        assertFalse(qwen.vocabulary().addsBos());
        assertFalse(qwen.vocabulary().addsEos());
        assertEquals(llama.vocabulary().bos().getAsInt(), llama.vocabulary().tokenize("x", true, false)[0]);
    }
}
