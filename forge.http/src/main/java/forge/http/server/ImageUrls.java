package forge.http.server;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Whether and how the server fetches an image a request names by an {@code http(s)} URL (OpenAI's
 * {@code image_url.url}, Anthropic's {@code url} source, Responses' {@code input_image.image_url}).
 * Off by default: a URL is then refused with a 400 naming {@code --allow-image-urls}. When on, a
 * fetch may reach only public addresses: loopback, private, link-local, shared (CGNAT), multicast
 * and reserved addresses ({@link #blocked}) are refused unless one of {@link #privateNets} holds
 * them, which is how a user lets the server fetch from their own network.
 *
 * @param allowed        whether image URLs are fetched at all ({@code --allow-image-urls})
 * @param privateNets    networks in CIDR notation ({@code 192.168.1.0/24}, {@code fd00::/8}) that
 *                       may be reached although {@link #blocked} names them
 *                       ({@code --allow-image-url-net}; {@code 0.0.0.0/0} and {@code ::/0} for any)
 * @param maxBytes       the largest image body accepted
 * @param connectMillis  how long one connection may take to open
 * @param timeoutMillis  how long a whole fetch may take, every redirect included
 * @param maxRedirects   how many redirects are followed (each hop's addresses checked again)
 */
public record ImageUrls(
        boolean allowed,
        List<String> privateNets,
        long maxBytes,
        long connectMillis,
        long timeoutMillis,
        int maxRedirects) {

    /** Off; llama-server's limits on a downloaded image (10 MiB in 10 seconds), and 3 redirects. */
    public static final ImageUrls DEFAULTS = new ImageUrls(false, List.of(), 10L * 1024 * 1024, 5_000, 10_000, 3);

    /**
     * Addresses no fetch reaches unless {@link #privateNets} says so: this host, private and
     * link-local networks, shared address space, multicast, and the reserved ranges of both
     * families (IANA's special-purpose registries). IPv4-mapped IPv6 addresses are read as the
     * IPv4 address they hold.
     */
    static final List<String> BLOCKED = List.of(
            "0.0.0.0/8",
            "10.0.0.0/8",
            "100.64.0.0/10",
            "127.0.0.0/8",
            "169.254.0.0/16",
            "172.16.0.0/12",
            "192.0.0.0/24",
            "192.0.2.0/24",
            "192.168.0.0/16",
            "198.18.0.0/15",
            "198.51.100.0/24",
            "203.0.113.0/24",
            "224.0.0.0/3",
            "::/96",
            "64:ff9b::/96",
            "100::/64",
            "2001:db8::/32",
            "fc00::/7",
            "fe80::/10",
            "ff00::/8");

    private static final List<Net> BLOCKED_NETS =
            BLOCKED.stream().map(Net::parse).toList();

    public ImageUrls {
        privateNets = List.copyOf(privateNets);
        for (String net : privateNets) {
            Net.parse(net); // refused here, at start-up, rather than on the first fetch
        }
        if (maxBytes < 1 || connectMillis < 1 || timeoutMillis < 1 || maxRedirects < 0) {
            throw new IllegalArgumentException("image URL limits must be positive");
        }
    }

    /** These settings with fetching on (or off). */
    public ImageUrls withAllowed(boolean on) {
        return new ImageUrls(on, privateNets, maxBytes, connectMillis, timeoutMillis, maxRedirects);
    }

    /** These settings with {@code nets} reachable although they are private. */
    public ImageUrls withPrivateNets(List<String> nets) {
        return new ImageUrls(allowed, nets, maxBytes, connectMillis, timeoutMillis, maxRedirects);
    }

    /** These settings with other limits. */
    public ImageUrls withLimits(long bytes, long connect, long timeout, int redirects) {
        return new ImageUrls(allowed, privateNets, bytes, connect, timeout, redirects);
    }

    /** Whether a fetch may connect to {@code address}. */
    boolean reachable(InetAddress address) {
        InetAddress a = unmapped(address);
        return privateNets.stream().anyMatch(n -> Net.parse(n).contains(a)) || !blocked(a);
    }

    /** Whether {@code address} is one of {@link #BLOCKED}'s. */
    static boolean blocked(InetAddress address) {
        InetAddress a = unmapped(address);
        return BLOCKED_NETS.stream().anyMatch(n -> n.contains(a));
    }

    /** {@code ::ffff:a.b.c.d} as {@code a.b.c.d}, so that an IPv4 rule holds for it too. */
    private static InetAddress unmapped(InetAddress address) {
        byte[] b = address.getAddress();
        if (b.length != 16) {
            return address;
        }
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return address;
            }
        }
        if (b[10] != (byte) 0xFF || b[11] != (byte) 0xFF) {
            return address;
        }
        try {
            return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
        } catch (UnknownHostException e) {
            throw new AssertionError("four bytes are an IPv4 address", e);
        }
    }

    /** A network: the first {@code bits} bits of {@code prefix}; an address alone is a network of one. */
    private record Net(byte[] prefix, int bits) {

        static Net parse(String net) {
            String n = net.strip().toLowerCase(Locale.ROOT);
            int slash = n.indexOf('/');
            String host = slash < 0 ? n : n.substring(0, slash);
            // literals only: a name here would be resolved, and this is a list of addresses
            if (host.isEmpty() || !host.matches("[0-9a-f:.]+")) {
                throw new IllegalArgumentException("not a network in CIDR notation (such as 192.168.0.0/16): " + net);
            }
            byte[] address;
            try {
                address = InetAddress.getByName(host).getAddress();
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(
                        "not a network in CIDR notation (such as 192.168.0.0/16): " + net, e);
            }
            int bits;
            try {
                bits = slash < 0 ? address.length * 8 : Integer.parseInt(n.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a prefix length: " + net, e);
            }
            if (bits < 0 || bits > address.length * 8) {
                throw new IllegalArgumentException("the prefix length of " + net + " is out of range");
            }
            return new Net(address, bits);
        }

        boolean contains(InetAddress address) {
            byte[] b = address.getAddress();
            if (b.length != prefix.length) {
                return false;
            }
            for (int i = 0; i < bits; i++) {
                int mask = 0x80 >>> (i % 8);
                if ((b[i / 8] & mask) != (prefix[i / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }
}
