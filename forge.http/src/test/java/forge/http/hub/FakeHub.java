package forge.http.hub;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A loopback imitation of the Hugging Face hub's file API, on two ports like the hub and its
 * blob storage: {@code GET /api/models/ORG/REPO/revision/main} (the file list),
 * {@code HEAD|GET /ORG/REPO/resolve/main/FILE} (or by the commit) (302 to the blob host, with {@code x-repo-commit},
 * {@code x-linked-etag}, {@code x-linked-size}), and the blob host's {@code GET /blob/SHA} with
 * {@code Range}. It can cut a transfer halfway, serve wrong bytes, and ask for a token (401).
 * A plain socket server, so that a cut is a real connection closed mid-body.
 */
public final class FakeHub implements AutoCloseable {

    public static final String COMMIT = "c0ffee0000000000000000000000000000000001";

    private final ServerSocket hub;
    private final ServerSocket blobs;
    private final Map<String, Map<String, byte[]>> repos = new ConcurrentHashMap<>();
    private final Map<String, byte[]> bySha = new ConcurrentHashMap<>();
    /** Every request seen, as "PORT-KIND METHOD PATH | header: value; ...". */
    public final List<String> log = Collections.synchronizedList(new ArrayList<>());
    /** Blob transfers to cut halfway from now on (a negative number: every one). */
    public final AtomicInteger cuts = new AtomicInteger();
    /** Serve each blob with its last byte changed (the hash then differs from x-linked-etag). */
    public volatile boolean corrupt;
    /** A token the hub asks for (401 without it); null for an open repository. */
    public volatile String token;

    public FakeHub() throws IOException {
        hub = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        blobs = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> accept(hub, true));
        Thread.ofVirtual().start(() -> accept(blobs, false));
    }

    /** The hub's base URL: what {@code --hf-endpoint} is given. */
    public String endpoint() {
        return "http://127.0.0.1:" + hub.getLocalPort();
    }

    /** Puts {@code bytes} in {@code repo} as {@code file}. */
    public FakeHub file(String repo, String file, byte[] bytes) {
        repos.computeIfAbsent(repo, r -> Collections.synchronizedMap(new LinkedHashMap<>()))
                .put(file, bytes);
        bySha.put(sha256(bytes), bytes);
        return this;
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void accept(ServerSocket server, boolean isHub) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().start(() -> serve(s, isHub));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static final Pattern RESOLVE = Pattern.compile("/([^/]+/[^/]+)/resolve/(?:main|" + COMMIT + ")/(.+)");
    private static final Pattern LIST = Pattern.compile("/api/models/([^/]+/[^/]+)/revision/main");

    private void serve(Socket socket, boolean isHub) {
        try (socket) {
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
            String requestLine = in.readLine();
            if (requestLine == null) {
                return;
            }
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) {
                int colon = line.indexOf(':');
                headers.put(
                        line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        line.substring(colon + 1).strip());
            }
            String[] parts = requestLine.split(" ");
            String method = parts[0];
            String path = java.net.URLDecoder.decode(parts[1].replaceFirst("\\?.*", ""), StandardCharsets.UTF_8);
            log.add((isHub ? "hub " : "blob ") + method + " " + path + " | " + headers);
            OutputStream out = socket.getOutputStream();
            if (isHub && token != null && !("Bearer " + token).equals(headers.get("authorization"))) {
                respond(out, 401, Map.of(), "{\"error\":\"Invalid credentials\"}".getBytes(), method);
                return;
            }
            Matcher list = LIST.matcher(path);
            Matcher resolve = RESOLVE.matcher(path);
            if (isHub && list.matches() && repos.containsKey(list.group(1))) {
                StringBuilder json = new StringBuilder(
                        "{\"id\":\"" + list.group(1) + "\",\"sha\":\"" + COMMIT + "\",\"siblings\":[");
                List<String> names = new ArrayList<>(List.of(".gitattributes", "README.md"));
                names.addAll(repos.get(list.group(1)).keySet());
                for (int i = 0; i < names.size(); i++) {
                    json.append(i == 0 ? "" : ",")
                            .append("{\"rfilename\":\"")
                            .append(names.get(i))
                            .append("\"}");
                }
                respond(
                        out,
                        200,
                        Map.of("Content-Type", "application/json"),
                        json.append("]}").toString().getBytes(),
                        method);
            } else if (isHub
                    && resolve.matches()
                    && repos.containsKey(resolve.group(1))
                    && repos.get(resolve.group(1)).containsKey(resolve.group(2))) {
                byte[] bytes = repos.get(resolve.group(1)).get(resolve.group(2));
                String sha = sha256(bytes);
                respond(
                        out,
                        302,
                        Map.of(
                                "Location",
                                "http://127.0.0.1:" + blobs.getLocalPort() + "/blob/" + sha + "?signature=x",
                                "x-repo-commit",
                                COMMIT,
                                "x-linked-etag",
                                "\"" + sha + "\"",
                                "x-linked-size",
                                String.valueOf(bytes.length),
                                "ETag",
                                "\"" + sha + "\""),
                        new byte[0],
                        method);
            } else if (!isHub && path.startsWith("/blob/") && bySha.containsKey(path.substring(6))) {
                blob(out, bySha.get(path.substring(6)), headers.get("range"), method);
            } else {
                respond(out, 404, Map.of(), "Entry not found".getBytes(), method);
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    private void blob(OutputStream out, byte[] bytes, String range, String method) throws IOException {
        if (corrupt) {
            bytes = bytes.clone();
            bytes[bytes.length - 1] ^= 1;
        }
        int from = 0;
        if (range != null) {
            Matcher m = Pattern.compile("bytes=(\\d+)-").matcher(range);
            if (m.matches()) {
                from = Integer.parseInt(m.group(1));
            }
        }
        if (from >= bytes.length) {
            respond(out, 416, Map.of("Content-Range", "bytes */" + bytes.length), new byte[0], method);
            return;
        }
        byte[] body = java.util.Arrays.copyOfRange(bytes, from, bytes.length);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept-Ranges", "bytes");
        if (from > 0) {
            headers.put("Content-Range", "bytes " + from + "-" + (bytes.length - 1) + "/" + bytes.length);
        }
        int cut = cuts.get();
        boolean cutThis = cut < 0 || (cut > 0 && cuts.decrementAndGet() >= 0);
        if (cutThis) {
            // the whole length announced, half of it sent, and the connection closed
            writeHead(out, from > 0 ? 206 : 200, headers, body.length);
            out.write(body, 0, body.length / 2);
            out.flush();
            return;
        }
        respond(out, from > 0 ? 206 : 200, headers, body, method);
    }

    private static void respond(OutputStream out, int status, Map<String, String> headers, byte[] body, String method)
            throws IOException {
        writeHead(out, status, headers, body.length);
        if (!method.equals("HEAD")) {
            out.write(body);
        }
        out.flush();
    }

    private static void writeHead(OutputStream out, int status, Map<String, String> headers, long length)
            throws IOException {
        StringBuilder head = new StringBuilder("HTTP/1.1 " + status + " X\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("Content-Length: ").append(length).append("\r\nConnection: close\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    @Override
    public void close() throws IOException {
        hub.close();
        blobs.close();
    }
}
