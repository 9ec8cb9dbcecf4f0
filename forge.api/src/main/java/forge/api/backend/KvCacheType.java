package forge.api.backend;

/**
 * The element type of a context's KV cache: what each cached key and value is stored as
 * ({@code --kv-type}, or llama-server's {@code --cache-type-k}/{@code --cache-type-v}, which
 * ForgeLM keeps equal). The quantized types take less memory than {@code f16} ({@code q8_0} about
 * half) for a little accuracy; llama.cpp needs flash attention for a quantized V cache.
 *
 * {@snippet :
 * KvCacheType t = KvCacheType.parse("q8_0");   // KvCacheType.Q8_0
 * t.wire();                                    // "q8_0"
 * t.quantized();                               // true
 * }
 */
public enum KvCacheType {
    /** 16-bit floats: llama.cpp's default. */
    F16("f16", false),
    /** bfloat16. */
    BF16("bf16", false),
    /** 32-bit floats: twice the memory of {@code f16}. */
    F32("f32", false),
    /** 8-bit blocks: about half the memory of {@code f16}. */
    Q8_0("q8_0", true),
    /** 5-bit blocks with a minimum. */
    Q5_1("q5_1", true),
    /** 5-bit blocks. */
    Q5_0("q5_0", true),
    /** 4-bit blocks with a minimum. */
    Q4_1("q4_1", true),
    /** 4-bit blocks: about a quarter of {@code f16}. */
    Q4_0("q4_0", true);

    private final String wire;
    private final boolean quantized;

    KvCacheType(String wire, boolean quantized) {
        this.wire = wire;
        this.quantized = quantized;
    }

    /** The spelling on the command line, in {@code /props} and in llama.cpp's options: {@code q8_0}. */
    public String wire() {
        return wire;
    }

    /** Whether this is a block-quantized type, which needs flash attention in llama.cpp. */
    public boolean quantized() {
        return quantized;
    }

    /**
     * The type spelled {@code text} ({@link #wire()}, ignoring case).
     *
     * @throws IllegalArgumentException naming every allowed spelling
     */
    public static KvCacheType parse(String text) {
        return WireNames.parse(values(), KvCacheType::wire, text, "KV cache type");
    }

    /** The {@link #wire()} spelling, so that logs and messages read as the flags do. */
    @Override
    public String toString() {
        return wire;
    }
}
