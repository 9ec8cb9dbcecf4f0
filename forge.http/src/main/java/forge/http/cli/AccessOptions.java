package forge.http.cli;

import forge.api.ForgeException;
import forge.http.server.ImageUrls;
import forge.http.server.ServerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** {@code forge serve}'s options on who may call the API and what a request may be. */
final class AccessOptions {

    @Option(
            names = "--api-key",
            paramLabel = "KEY",
            description =
                    "Require 'Authorization: Bearer KEY' on every route but /health and the web UI's files (repeatable).")
    List<String> apiKeys = new ArrayList<>();

    @Option(
            names = "--api-key-file",
            paramLabel = "FILE",
            description = "A file of API keys, one a line (# starts a comment).")
    Path apiKeyFile;

    @Option(
            names = "--cors-origin",
            paramLabel = "ORIGIN",
            description =
                    "A browser origin allowed besides localhost ones, e.g. https://app.example (repeatable; * allows any).")
    List<String> corsOrigins = new ArrayList<>();

    @Option(
            names = "--allowed-host",
            paramLabel = "NAME",
            description =
                    "A Host name answered besides loopback ones while bound to a loopback address, e.g. mybox.lan (repeatable; .example.lan for a domain and its subdomains; * for any).")
    List<String> allowedHosts = new ArrayList<>();

    @Option(
            names = "--max-body",
            paramLabel = "SIZE",
            defaultValue = "16m",
            description = "The largest request body, in bytes or with k, m, g (default: ${DEFAULT-VALUE}).")
    String maxBody;

    @Option(
            names = "--strict",
            description =
                    "Refuse (400) parameters that would have no effect, instead of naming them in X-Forge-Ignored-Params.")
    boolean strict;

    @Option(
            names = "--allow-image-urls",
            description =
                    "Fetch images that requests name by http(s) URL (image_url, Anthropic url sources, input_image), at most --image-url-max-size each within --image-url-timeout; never from loopback, private or link-local addresses unless --allow-image-url-net names them. Off: such a URL is a 400.")
    boolean allowImageUrls;

    @Option(
            names = "--allow-image-url-net",
            paramLabel = "CIDR",
            description =
                    "A network image URLs may reach although it is loopback, private or link-local, e.g. 192.168.1.0/24 (repeatable; 0.0.0.0/0 and ::/0 for any).")
    List<String> imageUrlNets = new ArrayList<>();

    @Option(
            names = "--image-url-max-size",
            paramLabel = "SIZE",
            defaultValue = "10m",
            description = "The largest image fetched from a URL, in bytes or with k, m, g (default: ${DEFAULT-VALUE}).")
    String imageUrlMaxSize;

    @Option(
            names = "--image-url-timeout",
            paramLabel = "SECONDS",
            defaultValue = "10",
            description = "How long fetching one image URL may take, redirects included (default: ${DEFAULT-VALUE}).")
    double imageUrlTimeout;

    @Option(
            names = "--sse-keep-alive-ms",
            hidden = true,
            defaultValue = "5000",
            description = "Milliseconds of stream silence before an SSE comment.")
    long keepAliveMillis;

    ServerConfig apply(ServerConfig base) {
        List<String> keys = new ArrayList<>(apiKeys);
        if (apiKeyFile != null) {
            try {
                for (String line : Files.readAllLines(apiKeyFile, StandardCharsets.UTF_8)) {
                    String key = line.strip();
                    if (!key.isEmpty() && !key.startsWith("#")) {
                        keys.add(key);
                    }
                }
            } catch (IOException e) {
                throw new ForgeException("cannot read the API key file " + apiKeyFile + ": " + e.getMessage(), e);
            }
            if (keys.isEmpty()) {
                throw new ForgeException("the API key file " + apiKeyFile + " holds no key");
            }
        }
        if (!(imageUrlTimeout > 0) || imageUrlTimeout > 3600) {
            throw new ForgeException(
                    "--image-url-timeout: not a number of seconds from 0.001 to 3600: " + imageUrlTimeout);
        }
        long timeout = Math.max(1, Math.round(imageUrlTimeout * 1000));
        ImageUrls urls;
        try {
            urls = base.imageUrls()
                    .withAllowed(allowImageUrls)
                    .withPrivateNets(imageUrlNets)
                    .withLimits(
                            size(imageUrlMaxSize, "--image-url-max-size"),
                            Math.min(timeout, base.imageUrls().connectMillis()),
                            timeout,
                            base.imageUrls().maxRedirects());
        } catch (IllegalArgumentException e) {
            throw new ForgeException("--allow-image-url-net: " + e.getMessage(), e);
        }
        if (!allowImageUrls && !imageUrlNets.isEmpty()) {
            throw new ForgeException("--allow-image-url-net has no effect without --allow-image-urls");
        }
        return base.withApiKeys(keys)
                .withCorsOrigins(corsOrigins)
                .withBodyLimit(size(maxBody, "--max-body"))
                .withStrict(strict)
                .withKeepAliveMillis(keepAliveMillis)
                .withAllowedHosts(allowedHosts)
                .withImageUrls(urls);
    }

    /** Parses 4096, 512k, 16m, 1g. */
    static long size(String text) {
        return size(text, "--max-body");
    }

    /** Parses 4096, 512k, 16m, 1g, the value of {@code flag}. */
    static long size(String text, String flag) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 'k' -> unit = 1024;
            case 'm' -> unit = 1024L * 1024;
            case 'g' -> unit = 1024L * 1024 * 1024;
            default -> unit = 1;
        }
        if (unit > 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long n = Long.parseLong(t.strip());
            if (n < 1 || n > Integer.MAX_VALUE / unit) {
                throw new NumberFormatException();
            }
            return n * unit;
        } catch (NumberFormatException e) {
            throw new ForgeException(flag + ": not a size from 1k to 2g: " + text);
        }
    }
}
