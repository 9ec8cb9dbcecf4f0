package forge.http.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamResponseListener;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.util.component.LifeCycle;

/**
 * Fetches the image an {@code http(s)} URL names, as {@link ImageUrls} allows: one {@code GET} per
 * hop, each hop's host resolved and every address it resolves to checked
 * ({@link ImageUrls#reachable}) before any connection opens, redirects followed here (at most
 * {@link ImageUrls#maxRedirects}, each a new hop), the body read up to
 * {@link ImageUrls#maxBytes} and the whole fetch bounded by {@link ImageUrls#timeoutMillis}.
 *
 * <p>The check and the connection are one step: the client's address resolver is where the
 * addresses are checked, and the client connects to the addresses it returns, so a name that
 * resolves to a public address when checked and to a private one a moment later (DNS rebinding)
 * cannot move the connection. TLS still verifies the certificate against the URL's host name.
 * Nothing else a client keeps between requests is kept: no cookies, no proxy, no content decoding
 * (a compressed body would be read past the size limit before it was checked).
 *
 * <p>Lifecycle: made by {@link ForgeServer} only when fetching is allowed, its client added to the
 * Jetty server as a bean, so it starts and stops with the server. A failure is an {@link ApiError}
 * (400) naming the field, in the words of what went wrong; nothing is retried.
 */
final class ImageFetcher {

    /** How a host name becomes addresses: the system's resolver, or a test's. */
    interface Names {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** A hop refused before it connected: its host resolves to an address the settings keep out. */
    private static final class Unreachable extends IOException {
        Unreachable(String message) {
            super(message);
        }
    }

    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);

    private final ImageUrls settings;
    private final HttpClient client = new HttpClient();

    ImageFetcher(ImageUrls settings) {
        this(settings, InetAddress::getAllByName);
    }

    ImageFetcher(ImageUrls settings, Names names) {
        this.settings = settings;
        client.setFollowRedirects(false);
        client.setConnectTimeout(settings.connectMillis());
        client.setIdleTimeout(settings.timeoutMillis());
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.getContentDecoderFactories().clear();
        client.setUserAgentField(new HttpField(HttpHeader.USER_AGENT, "ForgeLM"));
        client.setSocketAddressResolver((host, port, context, promise) -> {
            List<InetSocketAddress> out = new ArrayList<>();
            try {
                for (InetAddress a : names.resolve(host)) {
                    if (!settings.reachable(a)) {
                        promise.failed(new Unreachable(host + " resolves to " + a.getHostAddress()
                                + ", a loopback, private or reserved address"));
                        return;
                    }
                    out.add(new InetSocketAddress(a, port));
                }
            } catch (UnknownHostException e) {
                promise.failed(e);
                return;
            }
            promise.succeeded(out);
        });
    }

    /** What starts and stops with the server. */
    LifeCycle lifeCycle() {
        return client;
    }

    /**
     * The body {@code url} answers with.
     *
     * @param at the field's path, for the refusal
     */
    byte[] fetch(String url, String at) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.timeoutMillis());
        URI uri = uri(url, at);
        for (int hop = 0; ; hop++) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                throw timedOut(url, at);
            }
            Request request = client.newRequest(uri)
                    .method(HttpMethod.GET)
                    .timeout(left, TimeUnit.MILLISECONDS)
                    .headers(h -> h.put(HttpHeader.ACCEPT, "image/*"));
            InputStreamResponseListener listener = new InputStreamResponseListener();
            request.send(listener);
            try {
                Response response = listener.get(left, TimeUnit.MILLISECONDS);
                int status = response.getStatus();
                if (REDIRECTS.contains(status)) {
                    listener.getInputStream().close(); // the redirect's own body is not read
                    if (hop >= settings.maxRedirects()) {
                        throw ApiError.badRequest(
                                at,
                                at + ": " + url + " redirects more than " + settings.maxRedirects()
                                        + " times; give the image's own URL");
                    }
                    String location = response.getHeaders().get(HttpHeader.LOCATION);
                    if (location == null) {
                        throw ApiError.badRequest(
                                at, at + ": " + uri + " redirects (" + status + ") without a Location");
                    }
                    uri = uri(uri.resolve(location.strip()).toString(), at);
                    continue;
                }
                if (status != 200) {
                    listener.getInputStream().close();
                    throw ApiError.badRequest(at, at + ": " + uri + " answered " + status + ", not an image");
                }
                long length = response.getHeaders().getLongField(HttpHeader.CONTENT_LENGTH);
                if (length > settings.maxBytes()) {
                    request.abort(new IOException("too large"));
                    throw tooLarge(uri, at);
                }
                try (InputStream in = listener.getInputStream()) {
                    byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, settings.maxBytes() + 1));
                    if (body.length > settings.maxBytes()) {
                        request.abort(new IOException("too large"));
                        throw tooLarge(uri, at);
                    }
                    return body;
                }
            } catch (InterruptedException e) {
                request.abort(e);
                Thread.currentThread().interrupt();
                throw ApiError.badRequest(at, at + ": fetching " + url + " was interrupted");
            } catch (TimeoutException e) {
                request.abort(e);
                throw timedOut(url, at);
            } catch (ExecutionException | IOException e) {
                throw failed(e, uri, url, at, deadline);
            }
        }
    }

    /** The URL, if it is an absolute {@code http} or {@code https} one with a host. */
    private static URI uri(String url, String at) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw ApiError.badRequest(at, at + ": not a valid URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw ApiError.badRequest(at, at + ": " + url + " is not an http(s) URL");
        }
        if (uri.getHost() == null) {
            throw ApiError.badRequest(at, at + ": " + url + " names no host");
        }
        return uri;
    }

    private ApiError failed(Exception e, URI uri, String url, String at, long deadline) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof Unreachable u) {
                return ApiError.badRequest(
                        at,
                        at + ": " + uri + " is not fetched: " + u.getMessage()
                                + "; image URLs reach public addresses only, unless --allow-image-url-net"
                                + " names the network");
            }
            if (t instanceof UnknownHostException) {
                return ApiError.badRequest(at, at + ": cannot resolve the host of " + uri);
            }
            if (t instanceof TimeoutException) {
                return timedOut(url, at);
            }
        }
        if (System.nanoTime() - deadline >= 0) {
            return timedOut(url, at);
        }
        String why = e instanceof ExecutionException && e.getCause() != null
                ? e.getCause().toString()
                : e.toString();
        return ApiError.badRequest(at, at + ": fetching " + uri + " failed: " + why);
    }

    private ApiError timedOut(String url, String at) {
        return ApiError.badRequest(at, at + ": " + url + " was not fetched within " + settings.timeoutMillis() + " ms");
    }

    private ApiError tooLarge(URI uri, String at) {
        return ApiError.badRequest(
                at, at + ": " + uri + " is larger than " + settings.maxBytes() + " bytes, the most an image may be");
    }
}
