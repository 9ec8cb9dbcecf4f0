package forge.http.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code forge} command: {@code serve}, {@code plugins}, {@code model synth}.
 */
@Command(name = "forge", mixinStandardHelpOptions = true, versionProvider = ForgeCli.Version.class,
        description = "ForgeLM: a local, OpenAI-compatible LLM server for GGUF models.",
        subcommands = {ServeCommand.class, PluginsCommand.class, ModelCommand.class, ModelStoreCommands.Pull.class,
                CommandLine.HelpCommand.class})
public final class ForgeCli implements Callable<Integer> {

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
        CommandLine cli = new CommandLine(new ForgeCli());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("forge: " + e.getMessage());
            if (Boolean.getBoolean("forge.debug")) {
                e.printStackTrace(commandLine.getErr());
            }
            return 1;
        });
        return cli.execute(args);
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
                    ? ForgeCli.class.getModule().getDescriptor().rawVersion().orElse("dev") : "dev";
            return new String[] {"ForgeLM " + version + " (llama.cpp v0.5.0 via node-llama-cpp 3.22.1), Java " + Runtime.version()};
        }
    }
}
