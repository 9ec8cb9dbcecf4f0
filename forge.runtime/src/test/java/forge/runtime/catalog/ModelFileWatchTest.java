package forge.runtime.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watch on real files: a write in place is reported, then its settling; a rename over the file is not. */
class ModelFileWatchTest {

    @TempDir
    Path dir;

    /** What the watch told, in order. */
    final LinkedBlockingQueue<String> heard = new LinkedBlockingQueue<>();
    // The poll is long (a minute): only the inotify event, or the check watch() runs, can report in time.
    ModelFileWatch watch = new ModelFileWatch(
            new ModelFileWatch.Listener() {
                @Override
                public void changedInPlace(ModelEntry entry, String why) {
                    heard.add("changed " + entry.id() + ": " + why);
                }

                @Override
                public void settled(ModelEntry entry) {
                    heard.add("settled " + entry.id());
                }
            },
            Duration.ofMillis(300),
            Duration.ofMinutes(1));

    @AfterEach
    void close() {
        watch.close();
    }

    private static ModelEntry entry(String id, Path file) {
        return new ModelEntry(
                new ModelDescriptor(id, List.of(), file, ModelMetadata.EMPTY),
                null,
                "file",
                List.of(file),
                new ModelState.Unloaded(),
                null);
    }

    private String next() throws InterruptedException {
        String s = heard.poll(30, TimeUnit.SECONDS);
        assertTrue(s != null, "the watch said nothing within 30 s");
        return s;
    }

    @Test
    void aWriteInPlaceIsReportedAtOnceThenItsSettlingOnce() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[4096]);
        ModelEntry e = entry("m", f);
        watch.watch(e, List.of(f), List.of(FileIdentity.of(f).orElseThrow()));
        assertTrue(heard.isEmpty(), heard.toString());
        long t0 = System.nanoTime();
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            c.write(java.nio.ByteBuffer.wrap(new byte[100]));
        }
        String changed = next();
        assertTrue(changed.startsWith("changed m: " + f + " was changed in place (4096 -> "), changed);
        assertTrue(
                System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "by the inotify event, not the minute's poll");
        assertEquals("settled m", next());
        assertFalse(watch.watching(e), "a settled entry is watched again only once it is reloaded");
        assertEquals(null, heard.poll(500, TimeUnit.MILLISECONDS), "each change is told once");
    }

    @Test
    void aChangeDuringTheLoadIsSeenWhenTheWatchStarts() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[4096]);
        FileIdentity beforeLoad = FileIdentity.of(f).orElseThrow();
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
            c.truncate(1000);
        }
        watch.watch(entry("m", f), List.of(f), List.of(beforeLoad));
        // watch() checks on the caller's thread: the listener has heard it before watch() returned.
        assertTrue(heard.peek() != null && heard.peek().startsWith("changed m:"), heard.toString());
    }

    @Test
    void aFileRenamedOverTheWatchedOneIsNotAChange() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[4096]);
        Path other = Files.write(dir.resolve("other.gguf"), new byte[4096]);
        ModelEntry e = entry("m", f);
        ModelEntry o = entry("other", other);
        watch.watch(e, List.of(f), List.of(FileIdentity.of(f).orElseThrow()));
        watch.watch(o, List.of(other), List.of(FileIdentity.of(other).orElseThrow()));
        Path tmp = Files.write(dir.resolve("m.gguf.part"), new byte[100]);
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        // A later write in place to another watched file in the same folder: once it is heard, the
        // rename's events (earlier in the same queue) have been checked too.
        try (FileChannel c = FileChannel.open(other, StandardOpenOption.WRITE)) {
            c.truncate(10);
        }
        assertTrue(next().startsWith("changed other:"));
        assertTrue(watch.watching(e), "the renamed-over model stays watched, and serving");
        assertEquals("settled other", next());
    }

    @Test
    void aForgottenEntryIsNotReported() throws Exception {
        Path f = Files.write(dir.resolve("m.gguf"), new byte[4096]);
        Path g = Files.write(dir.resolve("g.gguf"), new byte[4096]);
        ModelEntry e = entry("m", f);
        watch.watch(e, List.of(f), List.of(FileIdentity.of(f).orElseThrow()));
        watch.watch(entry("g", g), List.of(g), List.of(FileIdentity.of(g).orElseThrow()));
        watch.forget(e);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
            c.truncate(10);
        }
        try (FileChannel c = FileChannel.open(g, StandardOpenOption.WRITE)) {
            c.truncate(10);
        }
        assertTrue(next().startsWith("changed g:"));
        assertEquals("settled g", next());
        assertFalse(watch.watching(e));
    }
}
