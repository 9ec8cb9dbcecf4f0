package forge.http.cli;

import forge.runtime.BackendChoice;
import forge.runtime.ForgeRuntime;
import forge.runtime.plugin.PluginSource;
import forge.runtime.plugin.SamplerStages;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code forge plugins}: what was found, from where, and what failed and why. */
@Command(
        name = "plugins",
        mixinStandardHelpOptions = true,
        description =
                "List the plugins found (built in and in the plugins folders), the backends' verdicts, and failures.")
final class PluginsCommand implements Callable<Integer> {

    @Mixin
    CommonOptions common = new CommonOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        ForgeRuntime.Inspection found = ForgeRuntime.inspect(common.runtimeConfig());
        out.println("Plugin sources:");
        for (PluginSource s : found.plugins().sources()) {
            out.printf("  %s %s%n", s.ok() ? "ok    " : "FAILED", s.location());
            for (String p : s.providers()) {
                out.printf("           %s%n", p);
            }
            s.failure().ifPresent(f -> out.printf("           reason: %s%n", f));
            for (String w : s.warnings()) {
                out.printf("           warning: %s%n", w);
            }
        }
        out.println("Backends:");
        for (BackendChoice b : found.backends()) {
            out.printf(
                    "  %s %-16s priority %-3d %s: %s%n",
                    b.chosen() ? "*" : " ",
                    b.name(),
                    b.priority(),
                    b.verdict().isUsable() ? "usable" : "unusable",
                    b.verdict().detail());
        }
        out.println("Chat templates:");
        for (var t : found.plugins().templates()) {
            // The names checked at discovery; a provider asked again might throw now.
            for (String name : t.names()) {
                String family = "?";
                String description = "";
                try {
                    family = t.provider().family();
                    description = t.provider().variants().stream()
                            .filter(v -> v.name().equals(name))
                            .map(v -> v.description())
                            .findFirst()
                            .orElse("");
                } catch (RuntimeException | LinkageError e) {
                    description = "(its provider failed: " + e + ")";
                }
                out.printf("    %-20s family %-10s %s (%s)%n", name, family, description, t.module());
            }
        }
        out.println("Sampler stages (besides the built-in ones, named in a request's \"samplers\"):");
        for (SamplerStages.Stage st : found.plugins().samplerStages().all()) {
            out.printf("    %-20s %s (%s)%n", st.info().name(), st.info().description(), st.module());
            for (var p : st.info().parameters()) {
                out.printf("        %-24s default %-8s %s%n", p.name(), p.fallback(), p.description());
            }
        }
        out.flush();
        return 0;
    }
}
