package forge.http.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.ForgeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code ~/.forge/models.json}, the catalog's own file: aliases that outlive a command line
 * ({@code {"aliases": {"coder": "qwen2.5-coder:7b"}}}), written by {@code forge models alias}.
 * Other keys are kept as they are.
 *
 * @param path    the file
 * @param aliases alias to the model id (or alias) it names, sorted
 */
record ModelsFile(Path path, Map<String, String> aliases) {

    private static final ObjectMapper JSON = new ObjectMapper();

    ModelsFile {
        aliases = Collections.unmodifiableMap(new TreeMap<>(aliases));
    }

    /** The file's aliases; none when it does not exist. */
    static ModelsFile read(Path path) {
        Map<String, String> aliases = new TreeMap<>();
        if (Files.isRegularFile(path)) {
            try {
                JsonNode root = JSON.readTree(path.toFile());
                root.path("aliases").properties().forEach(e -> {
                    if (e.getValue().isTextual()) {
                        aliases.put(e.getKey(), e.getValue().asText());
                    }
                });
            } catch (IOException e) {
                throw new ForgeException(path + ": not valid JSON: " + e.getMessage(), e);
            }
        }
        return new ModelsFile(path, aliases);
    }

    /** This file with {@code alias} naming {@code target}; an empty target removes the alias. */
    ModelsFile with(String alias, String target) {
        Map<String, String> next = new TreeMap<>(aliases);
        if (target.isEmpty()) {
            next.remove(alias);
        } else {
            next.put(alias, target);
        }
        return new ModelsFile(path, next);
    }

    /** Writes it (atomically: a reader never sees half a file), keeping the keys it does not know. */
    void write() {
        try {
            ObjectNode root = Files.isRegularFile(path) && JSON.readTree(path.toFile()) instanceof ObjectNode o
                    ? o
                    : JSON.createObjectNode();
            ObjectNode a = root.putObject("aliases");
            aliases.forEach(a::put);
            Files.createDirectories(path.getParent());
            Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
            JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), root);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new ForgeException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
