package forge.api.template;

/**
 * What the container of an audio clip says about it, read without decoding: WAV's {@code fmt }
 * and {@code data} chunks (the byte rate and the data's length), MP3's frame headers (walked to
 * the last whole frame: an MP3 has no length field). Formats libmtmd's decoder reads (its
 * {@code mtmd-helper} decodes WAV and MP3 through miniaudio).
 *
 * @param format  {@code wav} or {@code mp3}
 * @param seconds the clip's length; negative when the header is cut short or names no length
 */
record AudioHeader(String format, double seconds) {

    /** The container {@code b} starts with, or null for none of the audio formats. */
    static String format(byte[] b) {
        if (b.length >= 12
                && b[0] == 'R'
                && b[1] == 'I'
                && b[2] == 'F'
                && b[3] == 'F'
                && b[8] == 'W'
                && b[9] == 'A'
                && b[10] == 'V'
                && b[11] == 'E') {
            return "wav";
        }
        if ((b.length >= 3 && b[0] == 'I' && b[1] == 'D' && b[2] == '3') || frame(b, 0) != null) {
            return "mp3";
        }
        return null;
    }

    /** The header of {@code b}, or null when it is no audio format this reads. */
    static AudioHeader of(byte[] b) {
        String format = format(b);
        if (format == null) {
            return null;
        }
        return new AudioHeader(format, format.equals("wav") ? wavSeconds(b) : mp3Seconds(b));
    }

    /** The data chunk's length over the byte rate of the {@code fmt } chunk before it. */
    private static double wavSeconds(byte[] b) {
        long byteRate = -1;
        int i = 12;
        while (i + 8 <= b.length) {
            long size = u32le(b, i + 4);
            boolean fmt = b[i] == 'f' && b[i + 1] == 'm' && b[i + 2] == 't' && b[i + 3] == ' ';
            boolean data = b[i] == 'd' && b[i + 1] == 'a' && b[i + 2] == 't' && b[i + 3] == 'a';
            if (fmt) {
                if (size < 16 || i + 8 + 16 > b.length) {
                    return -1;
                }
                int channels = u16le(b, i + 10);
                long rate = u32le(b, i + 12);
                byteRate = u32le(b, i + 16);
                if (channels < 1 || rate < 1 || byteRate < 1) {
                    return -1;
                }
            } else if (data) {
                long available = b.length - (i + 8L);
                // a streamed WAV may leave the length unset (0 or all ones): the bytes there are the clip
                boolean unset = size == 0 || size == 0xFFFFFFFFL;
                if (byteRate < 0 || (!unset && size > available)) {
                    return -1; // no format before the samples, or samples cut short
                }
                return (double) (unset ? available : size) / byteRate;
            }
            i += 8 + (int) Math.min(size + (size & 1), Integer.MAX_VALUE - 16);
        }
        return -1;
    }

    /** The frames' samples over their rate, after an ID3v2 tag; only whole frames count. */
    private static double mp3Seconds(byte[] b) {
        int i = 0;
        if (b.length >= 10 && b[0] == 'I' && b[1] == 'D' && b[2] == '3') {
            // the tag's size: four 7-bit bytes (syncsafe), after a 10-byte header (and a footer when flagged)
            long size = ((b[6] & 0x7FL) << 21) | ((b[7] & 0x7FL) << 14) | ((b[8] & 0x7FL) << 7) | (b[9] & 0x7FL);
            i = (int) Math.min(10 + size + ((b[5] & 0x10) != 0 ? 10 : 0), Integer.MAX_VALUE);
        }
        double seconds = 0;
        int frames = 0;
        while (true) {
            int[] f = frame(b, i);
            if (f == null || i + f[0] > b.length) {
                break;
            }
            seconds += (double) f[1] / f[2];
            frames++;
            i += f[0];
        }
        return frames == 0 ? -1 : seconds;
    }

    private static final int[][] BITRATES = {
        // MPEG-1 layer III, then MPEG-2/2.5 layer III (kbit/s by index; 0 is "free", 15 is invalid)
        {0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, -1},
        {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, -1}
    };
    private static final int[] RATES = {44100, 48000, 32000, -1};

    /**
     * The layer III frame whose header is at {@code i}: {@code [length, samples, sampleRate]}, or
     * null when there is none (another layer, a free or invalid bit rate, no sync).
     */
    private static int[] frame(byte[] b, int i) {
        if (i < 0 || i + 4 > b.length || (b[i] & 0xFF) != 0xFF || (b[i + 1] & 0xE0) != 0xE0) {
            return null;
        }
        int version = (b[i + 1] >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
        int layer = (b[i + 1] >> 1) & 3; // 1: layer III
        int bitrateIndex = (b[i + 2] >> 4) & 0xF;
        int rateIndex = (b[i + 2] >> 2) & 3;
        int padding = (b[i + 2] >> 1) & 1;
        if (version == 1 || layer != 1 || RATES[rateIndex] < 0) {
            return null;
        }
        boolean mpeg1 = version == 3;
        int kbps = BITRATES[mpeg1 ? 0 : 1][bitrateIndex];
        if (kbps <= 0) {
            return null;
        }
        int rate = RATES[rateIndex] >> (mpeg1 ? 0 : version == 2 ? 1 : 2);
        int samples = mpeg1 ? 1152 : 576;
        int length = (samples / 8) * kbps * 1000 / rate + padding;
        return new int[] {length, samples, rate};
    }

    private static long u32le(byte[] b, int at) {
        return (b[at] & 0xFFL) | ((b[at + 1] & 0xFFL) << 8) | ((b[at + 2] & 0xFFL) << 16) | ((b[at + 3] & 0xFFL) << 24);
    }

    private static int u16le(byte[] b, int at) {
        return (b[at] & 0xFF) | ((b[at + 1] & 0xFF) << 8);
    }
}
