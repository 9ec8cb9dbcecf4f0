package com.example.plaintemplate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.Role;
import forge.api.template.TemplateContext;
import forge.runtime.plugin.PluginCheck;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlainTemplatesTest {

    private static final ModelDescriptor MODEL =
            new ModelDescriptor("llama-base", List.of(), Path.of("llama-base.gguf"), ModelMetadata.EMPTY);

    @Test
    void rendersPlainTurnsAndClaimsBaseModels() {
        PlainTemplates p = new PlainTemplates();
        var t = p.create("plain-1", new TemplateContext(MODEL, "", ""));
        assertEquals(
                "System: Be brief.\nUser: Hi\nAssistant:",
                t.render(ChatPrompt.of(
                        List.of(ChatMessage.of(Role.SYSTEM, "Be brief."), ChatMessage.of(Role.USER, "Hi")))));
        assertEquals("plain-1", p.claim(MODEL).orElseThrow().variant());
        assertTrue(p.claim(new ModelDescriptor("qwen-instruct", List.of(), Path.of("q.gguf"), ModelMetadata.EMPTY))
                .isEmpty());
    }

    /**
     * The plugin as a user installs it: its classes packed into a jar, dropped into a plugins
     * folder, and loaded by the runtime's PluginRegistry into a layer of its own, in a JVM whose
     * module path holds ForgeLM and not this module (here it is built in, which is not the test).
     */
    @Test
    void loadsFromAFolderAsADroppedInJar(@TempDir Path work) throws Exception {
        String out = PluginCheck.forkModuleBuild(work, "plain-template.jar", "com.example.plaintemplate");
        assertTrue(out.contains("template plain-1 (com.example.plaintemplate)"), out);
    }
}
