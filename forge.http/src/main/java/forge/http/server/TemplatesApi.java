package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatPrompt;
import forge.api.template.ChatTemplate;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateContext;
import forge.api.template.TemplateVariant;
import forge.runtime.catalog.ModelCatalog;
import forge.runtime.catalog.ModelEntry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/templates} (every installed variant: name, family, plugin module, version) and
 * {@code POST /apply-template} (the prompt a conversation renders to, without generating, with the
 * template, family and plugin module that rendered it).
 */
final class TemplatesApi {

    private final ModelCatalog catalog;

    TemplatesApi(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    ObjectNode list() {
        ObjectNode out = Json.MAPPER.createObjectNode().put("object", "list");
        ArrayNode data = out.putArray("data");
        for (String name : catalog.templates().variants()) {
            ChatTemplateProvider p = catalog.templates().providerOf(name).orElseThrow();
            ObjectNode entry = data.addObject().put("name", name).put("module", module(p));
            try {
                // Checked at discovery; a provider that throws now is listed with the reason, never a 500.
                String description = p.variants().stream()
                        .filter(v -> v.name().equals(name))
                        .map(TemplateVariant::description)
                        .findFirst()
                        .orElse("");
                entry.put("family", p.family()).put("version", p.version()).put("description", description);
            } catch (RuntimeException | LinkageError e) {
                entry.put("error", "its provider failed: " + e);
            }
        }
        return out;
    }

    /**
     * {@code {"model"?, "template"?, "messages", "tools"?, "add_generation_prompt"?, "chat_template_kwargs"?}}:
     * the named template (with the model's special tokens when a model is named too), else the
     * model's own template; with neither, the only model's.
     */
    ObjectNode apply(JsonNode body) {
        String modelName = body.path("model").isTextual() ? body.get("model").asText() : "";
        String templateName =
                body.path("template").isTextual() ? body.get("template").asText() : "";
        ModelEntry entry = null;
        if (!modelName.isEmpty()) {
            entry = catalog.find(modelName).orElseThrow(() -> ForgeServer.unknownModel(modelName));
        } else if (templateName.isEmpty()) {
            if (catalog.entries().size() != 1) {
                throw ApiError.badRequest("model", "name a 'model' or a 'template'");
            }
            entry = catalog.entries().getFirst();
        }
        ChatTemplate template;
        ChatTemplateProvider provider;
        if (!templateName.isEmpty()) {
            ChatTemplateProvider p = catalog.templates()
                    .providerOf(templateName)
                    .orElseThrow(() -> ApiError.badRequest(
                            "template",
                            "unknown template '" + templateName + "'; installed: "
                                    + String.join(", ", catalog.templates().variants())));
            TemplateContext context = entry != null
                    ? new TemplateContext(entry.descriptor(), "", "")
                    : new TemplateContext(
                            new ModelDescriptor(
                                    templateName, List.of(), Path.of(templateName + ".gguf"), ModelMetadata.EMPTY),
                            "",
                            "");
            template = p.create(templateName, context);
            provider = p;
        } else {
            template = catalog.serve(entry).template();
            provider = entry.template().provider();
        }
        Map<String, Object> kwargs = ChatRequest.templateKwargs(body);
        JsonNode agp = body.get("add_generation_prompt");
        if (agp != null && !agp.isBoolean()) {
            throw ApiError.badRequest("add_generation_prompt", "'add_generation_prompt' must be a boolean");
        }
        ChatPrompt prompt = new ChatPrompt(
                ChatRequest.messages(body.get("messages")),
                ChatRequest.tools(body.get("tools")),
                agp == null || agp.asBoolean(),
                kwargs);
        // The plugin too: a template name alone does not say which installed plugin rendered it.
        return Json.MAPPER
                .createObjectNode()
                .put("prompt", template.render(prompt))
                .put("template", template.name())
                .put("family", provider.family())
                .put("plugin", module(provider));
    }

    /** The name of the plugin module a provider comes from ({@code unnamed} on the class path). */
    private static String module(ChatTemplateProvider p) {
        return p.getClass().getModule().isNamed() ? p.getClass().getModule().getName() : "unnamed";
    }
}
