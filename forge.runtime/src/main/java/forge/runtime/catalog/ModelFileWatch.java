package forge.runtime.catalog;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the files of the models loaded with their weights mapped, and tells the catalog when one
 * is changed in place (unload it before its pages are read again) and when such a file has been
 * quiet long enough to be reloaded. A file replaced by rename is only logged: its mapping reads the
 * old file, which lives on unlinked until it is unmapped. The package documentation has the
 * lifecycle.
 *
 * <p>One platform thread ({@code forge-model-files}) waits on the folders' inotify watch (Java's
 * {@link WatchService}, which reports names, not files) and, on any event in a watched folder or
 * every {@code poll} without one, compares each watched file's {@link FileIdentity} with the one
 * its model was loaded from: a few {@code stat} calls, never per token. The poll also covers file
 * systems whose writes inotify does not see (network mounts), only later.
 */
final class ModelFileWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelFileWatch.class);

    /** What the watch reports, on its own thread; both may block briefly (an engine finishing a step). */
    interface Listener {
        /** {@code entry}'s file was written or truncated in place: stop reading its mapping now. */
        void changedInPlace(ModelEntry entry, String why);

        /** {@code entry}'s changed file has been unchanged for the settle time: reload it. */
        void settled(ModelEntry entry);
    }

    /** A loaded model's files, the identities they were loaded with, and whether a replacement was logged. */
    private record Watched(List<Path> files, List<FileIdentity> loaded, boolean replacedLogged) {}

    /** A changed model's files as last seen, and since when they look so. */
    private record Changing(List<Path> files, List<Optional<FileIdentity>> seen, long sinceNanos) {}

    private final Listener listener;
    private final long settleNanos;
    private final long pollMillis;
    private final WatchService service; // null where inotify is not available: polling only
    private final Thread thread;
    // guarded by this
    private final Map<ModelEntry, Watched> watched = new LinkedHashMap<>();
    private final Map<ModelEntry, Changing> changing = new LinkedHashMap<>();
    private final Set<Path> folders = new HashSet<>();
    private boolean closed;

    /**
     * @param settle how long a changed file must stay unchanged before it is reloaded (a copy in
     *               place writes for a while; reloading halfway would read half a file)
     * @param poll   how often every watched file is checked without an event
     */
    ModelFileWatch(Listener listener, Duration settle, Duration poll) {
        this.listener = Objects.requireNonNull(listener);
        this.settleNanos = settle.toNanos();
        this.pollMillis = Math.max(1, poll.toMillis());
        WatchService ws = null;
        try {
            ws = FileSystems.getDefault().newWatchService();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn(
                    "no file watch ({}): mapped model files are checked every {} ms instead",
                    e.getMessage(),
                    pollMillis);
        }
        this.service = ws;
        this.thread = Thread.ofPlatform().name("forge-model-files").daemon(true).unstarted(this::run);
        thread.start();
    }

    /**
     * Watches {@code entry}'s files from now on, against the identities they had before its load
     * read them: a change during the load is seen by the check this runs at once, on the caller's
     * thread (the listener may be called there).
     */
    void watch(ModelEntry entry, List<Path> files, List<FileIdentity> loaded) {
        if (files.size() != loaded.size()) {
            throw new IllegalArgumentException(files.size() + " files, " + loaded.size() + " identities");
        }
        for (Path f : files) {
            register(f);
        }
        synchronized (this) {
            changing.remove(entry);
            watched.put(entry, new Watched(List.copyOf(files), List.copyOf(loaded), false));
        }
        check();
    }

    /** Stops watching {@code entry} (it was unloaded and its mapping is gone); a pending reload is dropped too. */
    synchronized void forget(ModelEntry entry) {
        watched.remove(entry);
    }

    /** Whether {@code entry} is watched or waiting for its changed file to settle (for tests and {@code /props}). */
    synchronized boolean watching(ModelEntry entry) {
        return watched.containsKey(entry) || changing.containsKey(entry);
    }

    private void register(Path file) {
        if (service == null) {
            return;
        }
        Path folder;
        try {
            // A Hugging Face snapshot links into blobs/: the writes land on the target's folder.
            folder = file.toRealPath().getParent();
        } catch (IOException e) {
            folder = file.toAbsolutePath().getParent();
        }
        if (folder == null) {
            return;
        }
        synchronized (this) {
            if (!folders.add(folder)) {
                return;
            }
        }
        try {
            // Kept until the server stops: a handful of folders, and a model may come back.
            folder.register(
                    service,
                    StandardWatchEventKinds.ENTRY_MODIFY,
                    StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException e) {
            LOG.warn(
                    "cannot watch {} ({}): its model files are checked every {} ms instead",
                    folder,
                    e.getMessage(),
                    pollMillis);
        }
    }

    private void run() {
        while (true) {
            long wait;
            synchronized (this) {
                if (closed) {
                    return;
                }
                // While a file settles, look often enough to reload it soon after it is quiet.
                wait = changing.isEmpty()
                        ? pollMillis
                        : Math.max(1, Math.min(pollMillis, TimeUnit.NANOSECONDS.toMillis(settleNanos) / 4));
            }
            try {
                WatchKey key = null;
                if (service != null) {
                    key = service.poll(wait, TimeUnit.MILLISECONDS);
                } else {
                    synchronized (this) {
                        if (!closed) {
                            wait(wait); // the poll itself: nothing else to wait on; close() wakes it
                        }
                    }
                }
                // Which file an event names does not matter: every watched file is checked, a few stat calls.
                while (key != null) {
                    key.pollEvents();
                    key.reset();
                    key = service.poll();
                }
            } catch (InterruptedException e) {
                return; // nobody but the JVM's shutdown interrupts this thread
            } catch (ClosedWatchServiceException e) {
                return;
            }
            try {
                check();
            } catch (RuntimeException e) {
                LOG.warn("model file watch: {}", e.toString());
            }
        }
    }

    /**
     * One turn: compares every watched file with its loaded identity, and every changed one with its
     * last look. Runs on the watch's thread and in {@link #watch}: each move of an entry from one
     * map to the other is made under the monitor by whichever turn sees it first, so the listener
     * hears of each change once.
     */
    private void check() {
        Map<ModelEntry, Watched> w;
        Map<ModelEntry, Changing> c;
        synchronized (this) {
            w = new LinkedHashMap<>(watched);
            c = new LinkedHashMap<>(changing);
        }
        long now = System.nanoTime();
        for (Map.Entry<ModelEntry, Watched> e : w.entrySet()) {
            Watched watch = e.getValue();
            List<Optional<FileIdentity>> seen = identities(watch.files());
            String inPlace = null;
            String replaced = null;
            for (int i = 0; i < seen.size(); i++) {
                FileIdentity.Change change = watch.loaded().get(i).compare(seen.get(i));
                Path f = watch.files().get(i);
                switch (change) {
                    case IN_PLACE ->
                        inPlace = f + " was changed in place ("
                                + describe(watch.loaded().get(i), seen.get(i)) + ")";
                    case REPLACED -> replaced = f + " was replaced by another file";
                    case GONE -> replaced = f + " was removed";
                    case SAME -> {}
                }
            }
            ModelEntry entry = e.getKey();
            if (inPlace != null) {
                synchronized (this) {
                    if (watched.get(entry) != watch) {
                        continue; // forgotten or re-watched meanwhile
                    }
                    watched.remove(entry);
                    changing.put(entry, new Changing(watch.files(), seen, now));
                }
                LOG.warn(
                        "{}: {}; unloading it before its mapped weights are read again, reloading once the file "
                                + "is unchanged for {} ms",
                        entry.id(),
                        inPlace,
                        TimeUnit.NANOSECONDS.toMillis(settleNanos));
                listener.changedInPlace(entry, inPlace);
            } else if (replaced != null && !watch.replacedLogged()) {
                synchronized (this) {
                    watched.replace(entry, watch, new Watched(watch.files(), watch.loaded(), true));
                }
                LOG.info(
                        "{}: {}; it goes on serving the file it mapped, and its next load reads the new one",
                        entry.id(),
                        replaced);
            }
        }
        for (Map.Entry<ModelEntry, Changing> e : c.entrySet()) {
            Changing ch = e.getValue();
            List<Optional<FileIdentity>> seen = identities(ch.files());
            boolean settled = seen.equals(ch.seen()) && now - ch.sinceNanos() >= settleNanos;
            synchronized (this) {
                if (changing.get(e.getKey()) != ch) {
                    continue;
                }
                if (!seen.equals(ch.seen())) {
                    changing.put(e.getKey(), new Changing(ch.files(), seen, now));
                } else if (settled) {
                    changing.remove(e.getKey());
                }
            }
            if (settled) {
                LOG.info(
                        "{}: its file is unchanged for {} ms; reloading it",
                        e.getKey().id(),
                        TimeUnit.NANOSECONDS.toMillis(settleNanos));
                listener.settled(e.getKey());
            }
        }
    }

    private static List<Optional<FileIdentity>> identities(List<Path> files) {
        List<Optional<FileIdentity>> out = new ArrayList<>(files.size());
        for (Path f : files) {
            try {
                out.add(FileIdentity.of(f));
            } catch (IOException e) {
                out.add(Optional.empty());
            }
        }
        return out;
    }

    private static String describe(FileIdentity was, Optional<FileIdentity> now) {
        FileIdentity n = now.orElseThrow();
        return was.size() == n.size() ? "modified, " + n.size() + " bytes" : was.size() + " -> " + n.size() + " bytes";
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        // Not interrupted: the listener may be waiting for an engine to finish its step, which must not be cut short.
        if (service != null) {
            try {
                service.close();
            } catch (IOException e) {
                LOG.debug("closing the model file watch: {}", e.toString());
            }
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
