package forge.backend.llamacpp.natives;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the dynamic loader would read of a shared library, read in Java without loading it: the
 * machine it is for, its {@code DT_SONAME}, its {@code DT_NEEDED} libraries and its
 * {@code DT_RUNPATH}. A backend probe uses it to say whether a library would load (every needed
 * library resolvable) without {@code dlopen}, which would run the library's constructors and leave
 * it mapped for the life of the process.
 *
 * <p>Only 64-bit little-endian ELF is read (the natives ship for x86-64 Linux); every offset and
 * count is checked against the file's size before it is used.
 *
 * @param machine {@code e_machine} ({@link #EM_X86_64} for x86-64)
 * @param soname  {@code DT_SONAME}, when the library has one
 * @param needed  {@code DT_NEEDED}, in file order
 * @param runpath {@code DT_RUNPATH} (or the older {@code DT_RPATH}), split at {@code :}
 */
public record ElfFile(int machine, Optional<String> soname, List<String> needed, List<String> runpath) {

    /** {@code EM_X86_64}. */
    public static final int EM_X86_64 = 62;

    private static final int SHT_DYNAMIC = 6;
    private static final long DT_NULL = 0, DT_NEEDED = 1, DT_RPATH = 15, DT_SONAME = 14, DT_RUNPATH = 29;
    /** More sections or dynamic entries than any real library has: a damaged file, not a big one. */
    private static final int MAX_ENTRIES = 1 << 16;

    public ElfFile {
        needed = List.copyOf(needed);
        runpath = List.copyOf(runpath);
    }

    /**
     * Reads {@code file}'s ELF header, section headers, dynamic section and its string table.
     *
     * @throws IOException for a file that cannot be read, is not ELF, not 64-bit little-endian, or
     *                     is damaged (the message says which)
     */
    public static ElfFile read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer h = read(ch, 0, 64, size, "ELF header");
            if (h.getInt(0) != 0x464C457F) { // "\x7fELF" read little-endian
                throw new IOException("not an ELF file: " + file);
            }
            if (h.get(4) != 2 || h.get(5) != 1) {
                throw new IOException("not a 64-bit little-endian ELF file: " + file);
            }
            int machine = Short.toUnsignedInt(h.getShort(18));
            long shoff = h.getLong(40);
            int shentsize = Short.toUnsignedInt(h.getShort(58));
            int shnum = Short.toUnsignedInt(h.getShort(60));
            if (shoff == 0 || shnum == 0) {
                throw new IOException("no section headers in " + file);
            }
            if (shentsize < 64 || shnum > MAX_ENTRIES) {
                throw new IOException("damaged section headers in " + file);
            }
            ByteBuffer sections = read(ch, shoff, (long) shentsize * shnum, size, "section headers");
            for (int i = 0; i < shnum; i++) {
                int at = i * shentsize;
                if (sections.getInt(at + 4) != SHT_DYNAMIC) {
                    continue;
                }
                long dynOffset = sections.getLong(at + 24);
                long dynSize = sections.getLong(at + 32);
                int link = sections.getInt(at + 40);
                if (link < 0 || link >= shnum || dynSize > 16L * MAX_ENTRIES) {
                    throw new IOException("damaged dynamic section in " + file);
                }
                int strAt = link * shentsize;
                ByteBuffer strings = read(
                        ch, sections.getLong(strAt + 24), sections.getLong(strAt + 32), size, "dynamic string table");
                ByteBuffer dyn = read(ch, dynOffset, dynSize, size, "dynamic section");
                List<String> needed = new ArrayList<>();
                List<String> runpath = new ArrayList<>();
                String soname = null;
                for (int e = 0; e + 16 <= dynSize; e += 16) {
                    long tag = dyn.getLong(e);
                    long value = dyn.getLong(e + 8);
                    if (tag == DT_NULL) {
                        break;
                    }
                    if (tag == DT_NEEDED) {
                        needed.add(string(strings, value, file));
                    } else if (tag == DT_SONAME) {
                        soname = string(strings, value, file);
                    } else if (tag == DT_RUNPATH || (tag == DT_RPATH && runpath.isEmpty())) {
                        runpath.clear();
                        for (String p : string(strings, value, file).split(":")) {
                            if (!p.isEmpty()) {
                                runpath.add(p);
                            }
                        }
                    }
                }
                return new ElfFile(machine, Optional.ofNullable(soname), needed, runpath);
            }
            return new ElfFile(machine, Optional.empty(), List.of(), List.of()); // a static executable
        }
    }

    private static ByteBuffer read(FileChannel ch, long offset, long length, long size, String what)
            throws IOException {
        if (offset < 0 || length < 0 || length > Integer.MAX_VALUE || offset > size - length) {
            throw new IOException("the " + what + " lies outside the file");
        }
        ByteBuffer b = ByteBuffer.allocate((int) length).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (ch.read(b, offset + b.position()) < 0) {
                throw new IOException("the " + what + " is cut short");
            }
        }
        return b.flip();
    }

    private static String string(ByteBuffer table, long offset, Path file) throws IOException {
        if (offset < 0 || offset >= table.limit()) {
            throw new IOException("a dynamic string lies outside its table in " + file);
        }
        int end = (int) offset;
        while (end < table.limit() && table.get(end) != 0) {
            end++;
        }
        byte[] bytes = new byte[end - (int) offset];
        table.get((int) offset, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
