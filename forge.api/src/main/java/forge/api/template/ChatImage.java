package forge.api.template;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * An image in a conversation: the encoded file a client sent (PNG, JPEG, GIF or BMP bytes), named
 * by the SHA-256 of those bytes; or, the same way, an audio clip (WAV or MP3 bytes, OpenAI's
 * {@code input_audio}), which takes a marker and goes to the projector as an image does
 * ({@link #isAudio()}). Every door that takes images (OpenAI's {@code image_url} parts,
 * Anthropic's {@code image} blocks, Responses' {@code input_image}, Ollama's {@code images}) makes
 * one of these; the message's text carries {@link #MARKER} where the image goes, and the
 * {@link ChatPrompt} lists the images in the order of their markers, which is the order the
 * rendered prompt has them in.
 *
 * <p>What can be known without decoding is known here, in Java, before any native code sees the
 * bytes: the {@link #format()} from the first bytes and the {@link #dimensions()} the header
 * declares, so a door refuses an unknown format or a decompression bomb with a 400.
 *
 * @param data the encoded image (not copied: treat as read-only)
 * @param id   the lower-case hex SHA-256 of {@code data}: equal ids, equal images
 */
public record ChatImage(byte[] data, String id) {

    /**
     * Where an image goes in a message's text: llama.cpp's {@code mtmd_default_marker()}, which
     * libmtmd splits the rendered prompt at (the backend checks the two agree when it loads).
     */
    public static final String MARKER = "<__media__>";

    /**
     * The most pixels (width times height, as the header declares) an image may have: the doors
     * refuse a larger one with a 400, and the backend checks again before it decodes any pixel.
     */
    public static final long MAX_PIXELS = 8192L * 8192;

    /** The formats accepted, as {@link #format()} names them. */
    public static final List<String> FORMATS = List.of("png", "jpeg", "gif", "bmp");

    public ChatImage {
        if (data == null || id == null) {
            throw new NullPointerException("data and id");
        }
    }

    /** The image of {@code data}, named by its hash. */
    public static ChatImage of(byte[] data) {
        return new ChatImage(data, sha256(data));
    }

    /** The format named by the first bytes, if it is one of {@link #FORMATS}. */
    public Optional<String> format() {
        return Optional.ofNullable(format(data));
    }

    /** Whether the bytes are a WebP file (which the decoder cannot read): for a clearer refusal. */
    public boolean isWebp() {
        return starts(data, 'R', 'I', 'F', 'F')
                && data.length >= 12
                && data[8] == 'W'
                && data[9] == 'E'
                && data[10] == 'B'
                && data[11] == 'P';
    }

    /**
     * The width and height the header declares ({@code [width, height]}), read without decoding;
     * empty when the format is unknown or the header is cut short or names no size.
     */
    public Optional<long[]> dimensions() {
        String f = format(data);
        return f == null ? Optional.empty() : Optional.ofNullable(dimensions(f, data));
    }

    private static String format(byte[] b) {
        if (starts(b, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) {
            return "png";
        }
        if (starts(b, 0xFF, 0xD8, 0xFF)) {
            return "jpeg";
        }
        if (starts(b, 'G', 'I', 'F', '8')) {
            return "gif";
        }
        if (starts(b, 'B', 'M') && b.length >= 26) {
            return "bmp";
        }
        return null;
    }

    private static long[] dimensions(String format, byte[] b) {
        return switch (format) {
            // IHDR is the first chunk: length, "IHDR", width, height (big-endian)
            case "png" ->
                b.length >= 24 && b[12] == 'I' && b[13] == 'H' && b[14] == 'D' && b[15] == 'R'
                        ? new long[] {u32be(b, 16), u32be(b, 20)}
                        : null;
            // the logical screen: width, height (little-endian) after "GIF8?a"
            case "gif" -> b.length >= 10 ? new long[] {u16le(b, 6), u16le(b, 8)} : null;
            // BITMAPINFOHEADER: width, height (a negative height is a top-down bitmap)
            case "bmp" ->
                b.length >= 26 ? new long[] {Math.abs((long) s32le(b, 18)), Math.abs((long) s32le(b, 22))} : null;
            case "jpeg" -> jpegDimensions(b);
            default -> null;
        };
    }

    /** A JPEG's size from its first start-of-frame segment (SOF0 to SOF15, not DHT, JPG or DAC). */
    private static long[] jpegDimensions(byte[] b) {
        int i = 2;
        while (i + 3 < b.length) {
            if ((b[i] & 0xFF) != 0xFF) {
                return null;
            }
            int marker = b[i + 1] & 0xFF;
            if (marker == 0xFF) {
                i++; // fill byte
                continue;
            }
            if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
                i += 2; // no length
                continue;
            }
            int length = ((b[i + 2] & 0xFF) << 8) | (b[i + 3] & 0xFF);
            if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
                if (i + 9 > b.length) {
                    return null;
                }
                return new long[] {
                    ((b[i + 7] & 0xFF) << 8) | (b[i + 8] & 0xFF), ((b[i + 5] & 0xFF) << 8) | (b[i + 6] & 0xFF)
                };
            }
            if (marker == 0xDA || length < 2) {
                return null; // image data before any frame header
            }
            i += 2 + length;
        }
        return null;
    }

    private static long u32be(byte[] b, int at) {
        return ((long) (b[at] & 0xFF) << 24)
                | ((b[at + 1] & 0xFF) << 16)
                | ((b[at + 2] & 0xFF) << 8)
                | (b[at + 3] & 0xFF);
    }

    private static int u16le(byte[] b, int at) {
        return (b[at] & 0xFF) | ((b[at + 1] & 0xFF) << 8);
    }

    private static int s32le(byte[] b, int at) {
        return (b[at] & 0xFF) | ((b[at + 1] & 0xFF) << 8) | ((b[at + 2] & 0xFF) << 16) | (b[at + 3] << 24);
    }

    private static boolean starts(byte[] b, int... magic) {
        if (b.length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if ((b[i] & 0xFF) != magic[i]) {
                return false;
            }
        }
        return true;
    }

    /** The audio containers accepted (OpenAI's {@code input_audio.format} values), as {@link #audioFormat()} names them. */
    public static final List<String> AUDIO_FORMATS = List.of("wav", "mp3");

    /**
     * The audio container the bytes are ({@code wav}, {@code mp3}), if they are one: a media part
     * is an image or an audio clip, both going to the model's projector in marker order
     * (libmtmd tells them apart by the same bytes).
     */
    public Optional<String> audioFormat() {
        return Optional.ofNullable(AudioHeader.format(data));
    }

    /** Whether this part is an audio clip rather than an image. */
    public boolean isAudio() {
        return AudioHeader.format(data) != null;
    }

    /**
     * The clip's length in seconds as its container declares it (WAV's data length over its byte
     * rate, MP3's whole frames), read without decoding; empty when it is no audio or its header
     * is cut short.
     */
    public Optional<Double> seconds() {
        AudioHeader h = AudioHeader.of(data);
        return h == null || h.seconds() < 0 ? Optional.empty() : Optional.of(h.seconds());
    }

    /** The lower-case hex SHA-256 of {@code bytes}. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JDK has SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChatImage other && other.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "ChatImage[" + data.length + " bytes, sha256 " + id + "]";
    }
}
