package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.template.ChatImage;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The images (and audio clips: OpenAI chat's {@code input_audio} parts, read as
 * {@link #inputAudio}) of one request, as every door reads them: OpenAI's {@code image_url} parts and
 * Responses' {@code input_image} (a {@code data:} URI), Anthropic's {@code image} blocks (a
 * {@code base64} source). Each image read becomes a {@link ChatImage} and the
 * {@link ChatImage#MARKER marker} that takes its place in the message's text, so the model's
 * template renders the marker where the image was, and the prompt lists the images in marker order.
 *
 * <p>An {@code http(s)} URL is fetched by the server's {@link ImageFetcher} when the server allows
 * image URLs ({@code --allow-image-urls}), and its bytes checked as inline ones are; otherwise it
 * is refused, naming the flag.
 *
 * <p>Each image's text is read through {@link RecentImages}, so an image sent again (a returning
 * turn) is compared with the text read before rather than decoded and hashed again.
 *
 * <p>Everything that can be refused without decoding is refused here, as a 400 naming the field
 * in the door's own terms: a URL that is not a {@code data:} URI nor an allowed image URL, a
 * payload that is not base64, a format that is not PNG, JPEG, GIF or BMP, a header cut short, a
 * size over {@link #MAX_PIXELS} (read from the header: a decompression bomb is a few bytes that
 * declare gigapixels), more than {@link #MAX_IMAGES} images.
 */
final class Images {

    /** The most images one request may carry. */
    static final int MAX_IMAGES = 16;

    /**
     * The longest audio clip accepted, in seconds as its header declares: the projector encodes
     * audio in 30-second windows, each a few hundred tokens of context.
     */
    static final int MAX_AUDIO_SECONDS = 600;

    /** The most pixels (width times height, as the header declares) one image may have. */
    static final long MAX_PIXELS = ChatImage.MAX_PIXELS;

    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private final List<ChatImage> images = new ArrayList<>();
    private final ImageFetcher fetcher;

    /** A reader that refuses image URLs. */
    Images() {
        this(null);
    }

    /** A reader that fetches image URLs with {@code fetcher} (null: refuses them). */
    Images(ImageFetcher fetcher) {
        this.fetcher = fetcher;
    }

    /** The images read so far, in the order their markers were handed out. */
    List<ChatImage> images() {
        return List.copyOf(images);
    }

    /**
     * Reads the image of a {@code data:} URI ({@code data:image/png;base64,...}), or of an
     * {@code http(s)} URL where the server fetches them; returns the marker that stands for it in
     * the text.
     *
     * @param at the field's path, such as {@code messages[0].content[1].image_url.url}
     */
    String dataUri(String url, String at) {
        if (url.regionMatches(true, 0, "http://", 0, 7) || url.regionMatches(true, 0, "https://", 0, 8)) {
            if (fetcher == null) {
                throw ApiError.badRequest(
                        at,
                        at + ": image URLs are not fetched unless the server runs with --allow-image-urls;"
                                + " send the image inline as a data URI (data:image/png;base64,...)");
            }
            room(at); // before the fetch: a request over the limit costs no download
            return add(RecentImages.SHARED.of(fetcher.fetch(url, at)), at);
        }
        if (!url.regionMatches(true, 0, "data:", 0, 5)) {
            throw ApiError.badRequest(at, at + " must be a data URI (data:image/png;base64,...)");
        }
        int comma = url.indexOf(',');
        if (comma < 0 || !url.substring(5, comma).toLowerCase(Locale.ROOT).endsWith(";base64")) {
            throw ApiError.badRequest(at, at + " must be a base64 data URI (data:image/png;base64,...)");
        }
        return add(RecentImages.SHARED.ofText(url, u -> decode(u.substring(comma + 1), at)), at);
    }

    /**
     * Reads OpenAI's {@code input_audio} ({@code {"data": base64, "format": "wav"|"mp3"}}): the
     * bytes must be the container {@code format} names, with a header that gives the clip's length,
     * at most {@link #MAX_AUDIO_SECONDS}. Returns the marker that stands for the clip in the text.
     *
     * @param at the part's {@code input_audio} field, such as {@code messages[0].content[1].input_audio}
     */
    String inputAudio(JsonNode audio, String at) {
        if (audio == null || !audio.isObject()) {
            throw ApiError.badRequest(
                    at, at + " is required and must be an object {\"data\": base64, \"format\": \"wav\"}");
        }
        JsonNode format = audio.get("format");
        if (format == null || !format.isTextual() || !ChatImage.AUDIO_FORMATS.contains(format.asText())) {
            throw ApiError.badRequest(at + ".format", at + ".format must be one of " + ChatImage.AUDIO_FORMATS);
        }
        JsonNode data = audio.get("data");
        if (data == null || !data.isTextual()) {
            throw ApiError.badRequest(at + ".data", at + ".data is required and must be a base64 string");
        }
        String dat = at + ".data";
        ChatImage clip = RecentImages.SHARED.ofText(data.asText(), d -> decode(d, dat));
        room(dat);
        String f = format.asText();
        if (!clip.audioFormat().equals(Optional.of(f))) {
            throw ApiError.badRequest(
                    dat,
                    dat + " is not " + f.toUpperCase(Locale.ROOT) + " audio"
                            + clip.audioFormat()
                                    .map(a -> " (it is " + a.toUpperCase(Locale.ROOT) + "; say so in 'format')")
                                    .orElse(""));
        }
        double seconds = clip.seconds()
                .orElseThrow(() -> ApiError.badRequest(
                        dat,
                        dat + " is truncated or malformed " + f.toUpperCase(Locale.ROOT)
                                + " audio: its header gives no length"));
        if (seconds > MAX_AUDIO_SECONDS) {
            throw ApiError.badRequest(
                    dat, dat + " is %.1f seconds long; at most %d are accepted".formatted(seconds, MAX_AUDIO_SECONDS));
        }
        images.add(clip);
        return ChatImage.MARKER;
    }

    /** Reads base64 image bytes; returns the marker that stands for the image in the text. */
    String base64(String data, String at) {
        return add(RecentImages.SHARED.ofText(data, d -> decode(d, at)), at);
    }

    private static byte[] decode(String data, String at) {
        try {
            // strict (the MIME decoder skips any character it does not know): as sent, the common case
            return Base64.getDecoder().decode(data);
        } catch (IllegalArgumentException e) {
            // line breaks are allowed: removed below only when the data does not decode as it is, as a
            // pass of the pattern over an image's megabyte costs more than the decode
        }
        try {
            return Base64.getDecoder().decode(WHITESPACE.matcher(data).replaceAll(""));
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(at, at + " is not valid base64: " + e.getMessage());
        }
    }

    private void room(String at) {
        if (images.size() >= MAX_IMAGES) {
            throw ApiError.badRequest(
                    at, "at most " + MAX_IMAGES + " images or audio clips are accepted in one request");
        }
    }

    private String add(ChatImage image, String at) {
        room(at);
        if (image.format().isEmpty()) {
            throw ApiError.badRequest(
                    at,
                    at + " is not a PNG, JPEG, GIF or BMP image" + (image.isWebp() ? " (WebP is not supported)" : ""));
        }
        long[] size = image.dimensions()
                .orElseThrow(() -> ApiError.badRequest(
                        at,
                        at + " is a truncated or malformed "
                                + image.format().get().toUpperCase(Locale.ROOT) + " image: its header gives no size"));
        if (size[0] <= 0 || size[1] <= 0 || size[0] * size[1] > MAX_PIXELS) {
            throw ApiError.badRequest(
                    at, at + " is " + size[0] + "x" + size[1] + " pixels; at most " + MAX_PIXELS + " are accepted");
        }
        images.add(image);
        return ChatImage.MARKER;
    }
}
