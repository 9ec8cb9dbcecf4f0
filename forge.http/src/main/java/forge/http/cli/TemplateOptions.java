package forge.http.cli;

import forge.api.ForgeException;
import forge.runtime.catalog.CatalogConfig;
import forge.runtime.catalog.ModelCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code forge serve}'s chat template flags: ForgeLM's {@code --template} and llama-server's. */
final class TemplateOptions {

    @Option(
            names = "--template",
            paramLabel = "[MODEL=]NAME",
            description = "Chat template for every model (NAME), or for one model "
                    + "by id or alias (MODEL=NAME; repeatable), instead of choosing from the GGUF metadata.")
    List<String> templates = new ArrayList<>();

    @Option(
            names = "--chat-template",
            paramLabel = "NAME",
            description = "As llama-server: the chat template for every model, "
                    + "by name: one of ForgeLM's (forge plugins lists them) or one of llama-server's built-in names (llama2, mistral-v7, "
                    + "chatml, ...: rendered as llama-server renders them without --jinja); ForgeLM's wins a name both have. "
                    + "The same as --template NAME.")
    String chatTemplate;

    @Option(
            names = "--chat-template-file",
            paramLabel = "FILE",
            description =
                    "As llama-server: a Jinja chat template file every "
                            + "model uses instead of the one in its GGUF (rendered as transformers renders it, or by a family when it is that family's own).")
    Path chatTemplateFile;

    /** {@code --template MODEL=NAME}: the models named, each to answer once the catalog is read. */
    private final Map<String, String> perModel = new LinkedHashMap<>();

    /** The templates chosen, into the catalog's {@code config}. */
    void apply(CatalogConfig.Builder config) {
        String everyModel = "";
        for (String t : templates) {
            int eq = t.indexOf('=');
            if (eq < 0) {
                everyModel = t;
            } else if (eq == 0 || eq == t.length() - 1) {
                throw new ForgeException("--template " + t + ": expected NAME or MODEL=NAME");
            } else {
                perModel.put(t.substring(0, eq), t.substring(eq + 1));
            }
        }
        if (chatTemplate != null) {
            if (!everyModel.isEmpty() && !everyModel.equals(chatTemplate)) {
                throw new ForgeException(
                        "--chat-template " + chatTemplate + " and --template " + everyModel + " disagree");
            }
            everyModel = chatTemplate;
        }
        config.template(everyModel);
        if (chatTemplateFile != null) {
            config.templateSource(readTemplate(chatTemplateFile));
        }
        perModel.forEach(config::modelTemplate);
    }

    /** Each model a {@code --template MODEL=NAME} names answers in {@code catalog}. */
    void check(ModelCatalog catalog) {
        for (String name : perModel.keySet()) {
            if (catalog.find(name).isEmpty()) {
                throw new ForgeException(
                        "--template " + name + "=" + perModel.get(name) + ": no model answers to '" + name + "'");
            }
        }
    }

    /** A {@code --chat-template-file}: UTF-8 text, read once at start. */
    static String readTemplate(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            throw new ForgeException("--chat-template-file " + file + ": cannot read it: " + e.getMessage());
        }
    }
}
