package forge.lib.gguf.synth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.lib.gguf.GgufValue;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SynthVocabularyTest {

    @ParameterizedTest
    @ValueSource(strings = {"qwen", "llama", "gemma", "kimi", "generic"})
    void hasTheRequestedSizeWithBytesFirstAndSpecialsLast(String family) {
        SynthVocabulary v = SynthVocabulary.generate(new SynthSpec.Generated(family, 512));
        assertEquals(512, v.tokens().size());
        assertEquals(512, v.tokenTypes().size());
        assertEquals(512, new HashSet<>(v.tokens()).size(), "no duplicate tokens");
        assertEquals("!", v.tokens().getFirst(), "GPT-2's byte order");
        assertEquals("\u0120", v.tokens().get(v.id("\u0120")), "the space byte");
        assertEquals(SynthVocabulary.NORMAL, v.tokenTypes().get(300));
        int specials = (int)
                v.tokenTypes().stream().filter(t -> t != SynthVocabulary.NORMAL).count();
        for (int i = 512 - specials; i < 512; i++) {
            assertTrue(v.tokenTypes().get(i) != SynthVocabulary.NORMAL, "specials come last");
        }
        assertEquals(512 - 256 - specials, v.merges().size() - duplicateResults(v), "one merge per merged token");
        assertEquals(v.tokens().size(), ((GgufValue.Array) v.metadata().get("tokenizer.ggml.tokens")).size());
    }

    @ParameterizedTest
    @CsvSource({
        "qwen, <|endoftext|>, <|endoftext|>, <|im_end|>",
        "llama, <|begin_of_text|>, <|end_of_text|>, <|eot_id|>",
        "gemma, <bos>, <eos>, <end_of_turn>",
        "kimi, [BOS], [EOS], <|im_end|>",
        "generic, <|endoftext|>, <|endoftext|>, <|im_end|>"
    })
    void familiesHaveTheirBosEosAndEot(String family, String bos, String eos, String eot) {
        SynthVocabulary v = SynthVocabulary.generate(new SynthSpec.Generated(family, 512));
        assertEquals(v.id(bos), v.bosId());
        assertEquals(v.id(eos), v.eosId());
        assertEquals(v.id(eot), v.eotId());
    }

    @Test
    void familiesHaveTheirSpecialTokens() {
        var qwen = SynthVocabulary.generate(new SynthSpec.Generated("qwen", 512));
        assertEquals(SynthVocabulary.CONTROL, qwen.tokenTypes().get(qwen.id("<|im_start|>")));
        assertEquals(SynthVocabulary.USER_DEFINED, qwen.tokenTypes().get(qwen.id("<tool_call>")));
        assertEquals(SynthVocabulary.USER_DEFINED, qwen.tokenTypes().get(qwen.id("</think>")));
        assertEquals(GgufValue.bool(false), qwen.metadata().get("tokenizer.ggml.add_bos_token"));
        assertEquals(GgufValue.string("qwen2"), qwen.metadata().get("tokenizer.ggml.pre"));
        assertTrue(qwen.chatTemplate().contains("<tool_call>")
                && qwen.chatTemplate().contains("<|im_start|>"));

        var llama = SynthVocabulary.generate(new SynthSpec.Generated("llama", 512));
        assertEquals(GgufValue.uint32(llama.id("<|eom_id|>")), llama.metadata().get("tokenizer.ggml.eom_token_id"));
        assertEquals(SynthVocabulary.CONTROL, llama.tokenTypes().get(llama.id("<|python_tag|>")));
        assertEquals(GgufValue.bool(true), llama.metadata().get("tokenizer.ggml.add_bos_token"));
        assertTrue(llama.chatTemplate().contains("<|start_header_id|>")
                && llama.chatTemplate().contains("<|end_header_id|>"));

        var gemma = SynthVocabulary.generate(new SynthSpec.Generated("gemma", 512));
        assertEquals(GgufValue.uint32(gemma.id("<pad>")), gemma.metadata().get("tokenizer.ggml.padding_token_id"));
        assertTrue(gemma.chatTemplate().contains("<start_of_turn>"));

        var kimi = SynthVocabulary.generate(new SynthSpec.Generated("kimi", 512));
        for (String t : List.of(
                "<|im_user|>",
                "<|im_assistant|>",
                "<|im_system|>",
                "<|im_middle|>",
                "<|tool_calls_section_begin|>",
                "<|tool_calls_section_end|>",
                "<|tool_call_begin|>",
                "<|tool_call_argument_begin|>",
                "<|tool_call_end|>")) {
            assertEquals(SynthVocabulary.CONTROL, kimi.tokenTypes().get(kimi.id(t)), t);
        }
        // llama.cpp recognises Kimi K2 templates by this exact text
        assertTrue(kimi.chatTemplate().contains("<|im_assistant|>assistant<|im_middle|>"));

        var generic = SynthVocabulary.generate(new SynthSpec.Generated("generic", 512));
        // A ChatML template of no family's, with Hermes-style tool calls as many fine-tunes write them.
        assertTrue(generic.chatTemplate().contains("<|im_start|>")
                && generic.chatTemplate().contains("<tool_call>"));
        assertFalse(generic.chatTemplate()
                .equals(SynthVocabulary.generate(new SynthSpec.Generated("qwen", 512))
                        .chatTemplate()));
    }

    @ParameterizedTest
    @ValueSource(ints = {300, 512, 4096, 40_000})
    void everyMergedTokenIsReachedByBpeFromItsBytes(int size) {
        SynthVocabulary v = SynthVocabulary.generate(new SynthSpec.Generated("llama", size));
        assertEquals(size, v.tokens().size());
        Map<String, Integer> ranks = new HashMap<>();
        var tokens = new HashSet<>(v.tokens());
        for (String merge : v.merges()) {
            String[] parts = merge.split(" ", -1);
            assertEquals(2, parts.length, merge);
            assertTrue(tokens.contains(parts[0]) && tokens.contains(parts[1]), "parts are tokens: " + merge);
            assertTrue(tokens.contains(parts[0] + parts[1]), "result is a token: " + merge);
            ranks.putIfAbsent(merge, ranks.size());
        }
        for (int id = 256; id < size; id++) {
            if (v.tokenTypes().get(id) != SynthVocabulary.NORMAL) {
                continue;
            }
            String token = v.tokens().get(id);
            assertEquals(List.of(token), SynthVocabulary.bpe(token, ranks), "BPE of '" + token + "'");
        }
    }

    @Test
    void isDeterministic() {
        var spec = new SynthSpec.Generated("kimi", 2000);
        assertEquals(SynthVocabulary.generate(spec), SynthVocabulary.generate(spec));
    }

    /** Merges that produce a token some earlier merge already produced. */
    private static int duplicateResults(SynthVocabulary v) {
        var seen = new HashSet<String>();
        int duplicates = 0;
        for (String merge : v.merges()) {
            if (!seen.add(merge.replace(" ", ""))) {
                duplicates++;
            }
        }
        return duplicates;
    }
}
