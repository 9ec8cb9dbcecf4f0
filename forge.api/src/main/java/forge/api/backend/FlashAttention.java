package forge.api.backend;

/**
 * Whether a context computes attention with flash attention ({@code -fa}/{@code --flash-attn}, as
 * llama-server's).
 *
 * {@snippet :
 * FlashAttention fa = FlashAttention.parse("auto");   // FlashAttention.AUTO
 * fa.wire();                                          // "auto"
 * }
 */
public enum FlashAttention {
    /** The backend decides: on where the device and the model support it. */
    AUTO("auto"),
    /** Always; needed for a quantized V cache. */
    ON("on"),
    /** Never. */
    OFF("off");

    private final String wire;

    FlashAttention(String wire) {
        this.wire = wire;
    }

    /** The spelling on the command line and in {@code /props}: {@code auto}, {@code on} or {@code off}. */
    public String wire() {
        return wire;
    }

    /**
     * The mode spelled {@code text} ({@link #wire()}, ignoring case).
     *
     * @throws IllegalArgumentException naming every allowed spelling
     */
    public static FlashAttention parse(String text) {
        return WireNames.parse(values(), FlashAttention::wire, text, "flash attention");
    }

    /** The {@link #wire()} spelling, so that logs and messages read as the flags do. */
    @Override
    public String toString() {
        return wire;
    }
}
