package forge.template.toolkit;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * What a family recognises a model's chat template by: the SHA-256 of the template's text,
 * normalised ({@code \r\n} and {@code \r} as {@code \n}, leading and trailing spaces, tabs and
 * newlines removed, which is all a GGUF conversion or an editor changes). Why an exact hash and
 * not distinctive sentences: other models copy an official template's sentences (Seed-OSS,
 * Nemotron-3-Nano, StepFun-3.5 and Reka-Edge copy Qwen 3.5's tool-calling prompt) and render
 * differently around them, and a family that claimed them would write the wrong prompt from the
 * first byte; a template no family knows exactly is rendered as written by the generic plugin.
 */
public final class TemplateFingerprint {

    private TemplateFingerprint() {}

    /** The fingerprint of {@code source}: 64 lowercase hex digits. */
    public static String of(String source) {
        String s = source.replace("\r\n", "\n").replace('\r', '\n');
        int from = 0;
        int to = s.length();
        while (from < to && isBlank(s.charAt(from))) {
            from++;
        }
        while (to > from && isBlank(s.charAt(to - 1))) {
            to--;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(s.substring(from, to).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The value {@code known} maps the fingerprint of {@code source} to: a family's variant for one of its official templates. */
    public static Optional<String> lookup(Map<String, String> known, String source) {
        return Optional.ofNullable(known.get(of(source)));
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\n';
    }
}
