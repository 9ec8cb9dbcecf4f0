package forge.runtime.plugin;

import forge.api.sampler.SamplerProvider;
import forge.api.sampler.StageInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The sampler stages plugins contribute, by name: what a request's {@code samplers} may name
 * besides the built-in stages. Each name has one provider: duplicates were settled at discovery
 * ({@link PluginRegistry}).
 */
public final class SamplerStages {

    /** No plugin stage: only the built-in ones can be named. */
    public static final SamplerStages NONE = new SamplerStages(List.of());

    /**
     * A stage and where it comes from.
     *
     * @param info     its name, description and parameters, as its provider gave them at discovery
     * @param provider the provider that creates it
     * @param module   the provider's module
     */
    public record Stage(StageInfo info, SamplerProvider provider, String module) {
        public Stage {
            Objects.requireNonNull(info);
            Objects.requireNonNull(provider);
            Objects.requireNonNull(module);
        }
    }

    private final Map<String, Stage> stages = new LinkedHashMap<>();

    /** @throws IllegalArgumentException when two stages have the same name */
    public SamplerStages(List<Stage> stages) {
        for (Stage s : stages) {
            if (this.stages.putIfAbsent(s.info().name(), s) != null) {
                throw new IllegalArgumentException(
                        "two sampler stages are named " + s.info().name());
            }
        }
    }

    /** The stage of that name. */
    public Optional<Stage> find(String name) {
        return Optional.ofNullable(stages.get(name));
    }

    /** Every stage, in discovery order. */
    public List<Stage> all() {
        return List.copyOf(stages.values());
    }
}
