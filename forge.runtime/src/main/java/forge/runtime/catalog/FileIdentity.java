package forge.runtime.catalog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * What a model file is at one moment: the file it is (its key, on Linux the device and inode), its
 * size and its modification time. Comparing the identity a model was loaded from with the path's
 * identity now tells a write in place (same file, other size or time: a mapping of it sees the new
 * bytes, and a page past a truncation faults) from a replacement by rename (another file under the
 * path: the old file lives on, unlinked, as long as it is mapped, so its mapping is intact). Pure
 * logic apart from {@link #of}; see the package documentation for what the catalog does with each.
 *
 * @param key        the file's key ({@link BasicFileAttributes#fileKey()}); null where the file
 *                   system has none, and then every change counts as one in place
 * @param size       bytes
 * @param mtimeNanos modification time, nanoseconds since the epoch
 */
public record FileIdentity(Object key, long size, long mtimeNanos) {

    /** How a path's file relates to the one a model was loaded from. */
    public enum Change {
        /** The same file, unchanged. */
        SAME,
        /** The same file, written or truncated: its mapping now reads other bytes, or faults. */
        IN_PLACE,
        /** Another file under the path (renamed over it): the mapped file is unchanged. */
        REPLACED,
        /** No file under the path: the mapped file, unlinked, is unchanged while it is mapped. */
        GONE
    }

    /** The identity of the file at {@code path} now (following symbolic links, as a load does); empty when there is none. */
    public static Optional<FileIdentity> of(Path path) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            return Optional.of(
                    new FileIdentity(a.fileKey(), a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** How {@code now} (empty: no file) relates to this identity, the one a model was loaded from. */
    public Change compare(Optional<FileIdentity> now) {
        if (now.isEmpty()) {
            return Change.GONE;
        }
        FileIdentity n = now.get();
        if (key != null && n.key != null && !key.equals(n.key)) {
            return Change.REPLACED;
        }
        return size == n.size && mtimeNanos == n.mtimeNanos && Objects.equals(key, n.key)
                ? Change.SAME
                : Change.IN_PLACE;
    }
}
