package forge.lib.gguf.synth;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Images to go with the synthetic projectors ({@link SynthProjector}): PNG files (8-bit RGB) of
 * seeded noise, so that tests and benchmarks send the same image bytes every time (an image is
 * named by the SHA-256 of its bytes, and a cache test depends on that).
 */
public final class SynthImages {
    private SynthImages() {}

    /** A {@code width} x {@code height} PNG of noise from {@code seed}. */
    public static byte[] png(int width, int height, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        for (int y = 0; y < height; y++) {
            raw.write(0); // filter: none
            for (int x = 0; x < width * 3; x++) {
                raw.write(random.nextInt(256));
            }
        }
        Deflater deflater = new Deflater();
        deflater.setInput(raw.toByteArray());
        deflater.finish();
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        while (!deflater.finished()) {
            z.write(buf, 0, deflater.deflate(buf));
        }
        deflater.end();
        return png(width, height, z.toByteArray());
    }

    /** A PNG whose header says {@code width} x {@code height} and whose data is {@code idat} (broken on purpose, in tests). */
    public static byte[] png(int width, int height, byte[] idat) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A});
        ByteBuffer ihdr = ByteBuffer.allocate(13).putInt(width).putInt(height);
        ihdr.put((byte) 8).put((byte) 2).put((byte) 0).put((byte) 0).put((byte) 0); // 8-bit RGB
        chunk(out, "IHDR", ihdr.array());
        chunk(out, "IDAT", idat);
        chunk(out, "IEND", new byte[0]);
        return out.toByteArray();
    }

    private static void chunk(ByteArrayOutputStream out, String type, byte[] data) {
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        out.writeBytes(ByteBuffer.allocate(4).putInt(data.length).array());
        out.writeBytes(t);
        out.writeBytes(data);
        CRC32 crc = new CRC32();
        crc.update(t);
        crc.update(data);
        out.writeBytes(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }
}
