package forge.http.server;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.runtime.engine.TokenLogprob;
import java.util.List;

/**
 * OpenAI's two shapes of {@code logprobs}: chat's list of token objects, and the legacy
 * completions' parallel arrays. Built only for requests that asked; everyone else gets
 * {@code "logprobs": null}.
 */
final class Logprobs {

    private Logprobs() {}

    /** Chat: {@code {"content": [{"token","logprob","bytes","top_logprobs":[...]}], "refusal": null}}. */
    static ObjectNode chat(List<TokenLogprob> tokens) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        ArrayNode content = n.putArray("content");
        for (TokenLogprob t : tokens) {
            ObjectNode entry = token(content.addObject(), t);
            ArrayNode top = entry.putArray("top_logprobs");
            t.top().forEach(alt -> token(top.addObject(), alt));
        }
        n.putNull("refusal");
        return n;
    }

    private static ObjectNode token(ObjectNode n, TokenLogprob t) {
        n.put("token", t.token());
        n.put("logprob", t.logprob());
        ArrayNode bytes = n.putArray("bytes");
        for (byte b : t.bytes()) {
            bytes.add(b & 0xFF);
        }
        return n;
    }

    /**
     * The legacy completions shape, {@code {"tokens","token_logprobs","top_logprobs","text_offset"}},
     * for tokens whose text starts at UTF-16 offset {@code offset} of the choice's text. A token
     * without a log-probability (NaN: an echoed prompt's first token) has {@code null} for both.
     */
    static ObjectNode legacy(List<TokenLogprob> tokens, Offset offset) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        ArrayNode text = n.putArray("tokens");
        ArrayNode logprobs = n.putArray("token_logprobs");
        ArrayNode top = n.putArray("top_logprobs");
        ArrayNode offsets = n.putArray("text_offset");
        for (TokenLogprob t : tokens) {
            text.add(t.token());
            offsets.add(offset.advance(t.bytes()));
            if (Float.isNaN(t.logprob())) {
                logprobs.addNull();
                top.addNull();
                continue;
            }
            logprobs.add(t.logprob());
            ObjectNode alternatives = top.addObject();
            // An object keyed by token text, as OpenAI's: two alternatives with the same text keep the likelier.
            t.top().forEach(alt -> {
                if (!alternatives.has(alt.token())) {
                    alternatives.put(alt.token(), alt.logprob());
                }
            });
        }
        return n;
    }

    /**
     * Where the next token's text begins, in UTF-16 units of the choice's text: every byte that
     * starts a character starts one unit (two for a 4-byte character), so a character split
     * across tokens is counted once, at the token holding its first byte.
     */
    static final class Offset {
        private int units;
        private int hidden;

        Offset(int start) {
            this(start, 0);
        }

        /** @param hidden how many first tokens the text leaves out (they take no room) */
        Offset(int start, int hidden) {
            this.units = start;
            this.hidden = hidden;
        }

        /** The offset of a token with these bytes; moves past it. */
        int advance(byte[] bytes) {
            int at = units;
            if (hidden > 0) {
                hidden--;
                return at;
            }
            for (byte b : bytes) {
                int v = b & 0xFF;
                if ((v & 0xC0) != 0x80) {
                    units += v >= 0xF0 ? 2 : 1;
                }
            }
            return at;
        }
    }
}
