package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PluginsCommandTest {

    @TempDir
    Path work;

    @Test
    void listsBuiltInPluginsBackendVerdictsAndWhyABrokenPluginFailed() throws Exception {
        System.setProperty("forge.user.home", work.resolve("user-home").toString());
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        Files.write(plugins.resolve("broken.jar"), new byte[] {'n', 'o', 't', ' ', 'a', ' ', 'j', 'a', 'r'});
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new ForgeCli());
        cli.setOut(new PrintWriter(out));
        int code = cli.execute("plugins", "--plugins-dir", plugins.toString());
        String text = out.toString();
        assertEquals(0, code, text);
        // Built in, from the boot layer.
        assertTrue(text.contains("ok     boot"), text);
        assertTrue(text.contains("backend llama.cpp-cpu (forge.backend.llamacpp)"), text);
        // the generic family: the model's own template, then llama-server's built-in names
        assertTrue(text.contains("template generic [generic, chatml, llama2, llama2-sys, "), text);
        assertTrue(text.contains(", solar-open] (forge.template.generic)"), text);
        // The backend was probed and chosen, with its reason.
        assertTrue(text.lines().anyMatch(l -> l.startsWith("  * llama.cpp-cpu") && l.contains("usable: llama.cpp v0.5.0")), text);
        // The corrupt jar is reported with where it is and why, and the command still succeeds.
        assertTrue(text.contains("FAILED " + plugins.resolve("broken.jar").toAbsolutePath()), text);
        assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("reason:") && l.contains("Exception")), text);
    }
}
