package forge.http.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code forge} command line is built with the subcommand asked for, or all of them. */
class ForgeCliTest {

    private static final Set<String> ALL = Set.of("serve", "plugins", "models", "pull", "help");

    private static Set<String> subcommands(String... args) {
        // picocli lists aliases (model, ls) as names too; the primary names are enough here.
        return Set.copyOf(ForgeCli.commandLine(args).getSubcommands().values().stream()
                .map(CommandLine::getCommandName)
                .toList());
    }

    @Test
    void aNamedSubcommandIsTheOnlyOneBuilt() {
        assertEquals(Set.of("serve"), subcommands("serve", "-m", "x.gguf"));
        assertEquals(Set.of("models"), subcommands("model", "list"), "an alias names it too");
        assertEquals(Set.of("plugins"), subcommands("plugins"));
    }

    @Test
    void withoutOneEverySubcommandIsThereForUsageHelpAndErrors() {
        assertEquals(ALL, subcommands());
        assertEquals(ALL, subcommands("--help"));
        assertEquals(ALL, subcommands("help", "serve"), "help looks the others up");
        assertEquals(ALL, subcommands("srve"));
    }

    @Test
    void usageAndHelpOfASubcommandStillWork() {
        assertTrue(captured(() -> ForgeCli.run("--help")).contains("serve"), "usage lists the subcommands");
        String help = captured(() -> ForgeCli.run("help", "serve"));
        assertTrue(help.contains("Usage: forge serve"), help);
        assertTrue(captured(() -> ForgeCli.run("serve", "--help")).contains("Usage: forge serve"));
    }

    private static String captured(Runnable run) {
        PrintStream out = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setOut(out);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }
}
