package forge.http.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code forge} command: {@code serve}, {@code plugins}, {@code models ...}, {@code pull}.
 *
 * <p>The subcommands are added when the command line is built, and only the one named: picocli
 * reads a command's annotations, options and mixins when it is added, about 20 ms for each
 * command before the JIT, so building every command for each {@code forge serve} cost a quarter
 * of a second of its start. When the first argument names no subcommand ({@code forge},
 * {@code forge --help}, a typo), all of them are added, so usage and errors list them all.
 */
@Command(
        name = "forge",
        mixinStandardHelpOptions = true,
        versionProvider = ForgeCli.Version.class,
        description = "ForgeLM: a local, OpenAI-compatible LLM server for GGUF models.")
public final class ForgeCli implements Callable<Integer> {

    /**
     * The subcommands, in the order usage lists them, as classes that picocli instantiates. (No
     * constructor references: a lambda naming one of picocli's classes, which are too old a class
     * file version for the AOT cache, crashes the JDK 25 JVM that writes the cache.)
     */
    private static final List<Class<?>> SUBCOMMANDS = List.of(
            ServeCommand.class,
            PluginsCommand.class,
            ModelCommand.class,
            ModelStoreCommands.Pull.class,
            CommandLine.HelpCommand.class);

    /** A subcommand's names: its {@code @Command}'s name and aliases. */
    private static List<String> names(Class<?> subcommand) {
        Command command = subcommand.getAnnotation(Command.class);
        List<String> names = new ArrayList<>(List.of(command.aliases()));
        names.add(command.name());
        return names;
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        int code = run(args);
        if (code != 0 || !ServeCommand.serving()) {
            System.exit(code);
        }
    }

    /** Runs the command line and returns its exit code (the server keeps running in its own threads). */
    public static int run(String... args) {
        CommandLine cli = commandLine(args);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("forge: " + e.getMessage());
            if (Boolean.getBoolean("forge.debug")) {
                e.printStackTrace(commandLine.getErr());
            }
            return 1;
        });
        return cli.execute(args);
    }

    /**
     * The command line for {@code args}: {@code forge} with the subcommand that {@code args[0]}
     * names, or with every subcommand when it names none ({@code help} needs them all).
     */
    static CommandLine commandLine(String... args) {
        CommandLine cli = new CommandLine(new ForgeCli());
        String first = args.length > 0 ? args[0] : "";
        Class<?> named = null;
        for (Class<?> sub : SUBCOMMANDS) {
            if (sub != CommandLine.HelpCommand.class && names(sub).contains(first)) {
                named = sub;
            }
        }
        for (Class<?> sub : SUBCOMMANDS) {
            if (named == null || sub == named) {
                cli.addSubcommand(sub);
            }
        }
        return cli;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(System.out);
        return 0;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = ForgeCli.class.getModule().getDescriptor() != null
                    ? ForgeCli.class.getModule().getDescriptor().rawVersion().orElse("dev")
                    : "dev";
            return new String[] {
                "ForgeLM " + version + " (llama.cpp v0.5.0 via node-llama-cpp 3.22.1), Java " + Runtime.version()
            };
        }
    }
}
