package forge.api.backend;

import java.util.OptionalInt;

/**
 * A vocabulary's fill-in-the-middle tokens, as the GGUF file names them
 * ({@code tokenizer.ggml.fim_pre_token_id} and its siblings) or llama.cpp recognises them by text:
 * a code model writes what goes between a prefix and a suffix when its prompt is
 * {@code prefix-token PREFIX suffix-token SUFFIX middle-token}.
 *
 * @param prefix     the token before the code above the cursor ({@code <|fim_prefix|>}, {@code <PRE>})
 * @param suffix     the token before the code below the cursor
 * @param middle     the token after which the model writes the middle
 * @param repository the token that starts a repository-level prompt ({@code <|repo_name|>}), if any
 * @param separator  the token before each file of a repository-level prompt ({@code <|file_sep|>}), if any
 */
public record FimTokens(int prefix, int suffix, int middle, OptionalInt repository, OptionalInt separator) {
    public FimTokens {
        if (prefix < 0 || suffix < 0 || middle < 0) {
            throw new IllegalArgumentException("FIM token ids must not be negative");
        }
        if (repository.isPresent() && repository.getAsInt() < 0 || separator.isPresent() && separator.getAsInt() < 0) {
            throw new IllegalArgumentException("FIM token ids must not be negative");
        }
    }
}
