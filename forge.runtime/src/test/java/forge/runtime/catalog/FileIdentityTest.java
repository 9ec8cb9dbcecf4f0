package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.runtime.catalog.FileIdentity.Change;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write in place and a replacement by rename told apart, on real files and as values. */
class FileIdentityTest {

    @TempDir
    Path dir;

    private static FileIdentity of(Path p) throws Exception {
        return FileIdentity.of(p).orElseThrow();
    }

    @Test
    void theSameFileUntouchedIsTheSame() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[100]);
        assertEquals(Change.SAME, of(f).compare(FileIdentity.of(f)));
    }

    @Test
    void aTruncationOrAWriteInPlaceIsInPlace() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[100]);
        FileIdentity loaded = of(f);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
            c.truncate(10); // what cp does first to the file it overwrites
        }
        assertEquals(Change.IN_PLACE, loaded.compare(FileIdentity.of(f)));

        Path g = Files.write(dir.resolve("g.gguf"), new byte[100]);
        FileIdentity before = of(g);
        try (FileChannel c = FileChannel.open(g, StandardOpenOption.WRITE)) {
            c.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}), 50); // same size, new bytes
        }
        // The file system's clock may not have moved: set a later time as a writer's would be.
        Files.setLastModifiedTime(
                g, FileTime.fromMillis(Files.getLastModifiedTime(g).toMillis() + 1000));
        assertEquals(Change.IN_PLACE, before.compare(FileIdentity.of(g)));
    }

    @Test
    void aFileRenamedOverThePathIsAReplacementAndARemovalIsGone() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[100]);
        FileIdentity loaded = of(f);
        Path tmp = Files.write(dir.resolve("m.gguf.part"), new byte[100]);
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertEquals(Change.REPLACED, loaded.compare(FileIdentity.of(f)));
        Files.delete(f);
        assertTrue(FileIdentity.of(f).isEmpty());
        assertEquals(Change.GONE, loaded.compare(FileIdentity.of(f)));
    }

    @Test
    void withoutFileKeysEveryChangeCountsAsInPlace() {
        FileIdentity a = new FileIdentity(null, 100, 5);
        assertEquals(Change.SAME, a.compare(Optional.of(new FileIdentity(null, 100, 5))));
        assertEquals(Change.IN_PLACE, a.compare(Optional.of(new FileIdentity(null, 100, 6))));
        assertEquals(Change.IN_PLACE, a.compare(Optional.of(new FileIdentity("(dev=1,ino=2)", 100, 5))));
        assertEquals(Change.REPLACED, new FileIdentity("k1", 1, 1).compare(Optional.of(new FileIdentity("k2", 1, 1))));
        assertEquals(Change.IN_PLACE, new FileIdentity("k1", 1, 1).compare(Optional.of(new FileIdentity("k1", 2, 1))));
    }
}
