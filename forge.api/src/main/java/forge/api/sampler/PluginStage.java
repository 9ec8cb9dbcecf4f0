package forge.api.sampler;

import java.util.Objects;

/**
 * A plugin's stage in a request's chain: which provider makes it and with what arguments (already
 * checked). The backend calls {@link #create()} once per sequence, on its engine thread.
 *
 * @param name      the stage's name
 * @param provider  the provider that contributed it
 * @param arguments its parameters as the request set them
 */
public record PluginStage(String name, SamplerProvider provider, StageArguments arguments) implements SamplerStep {

    public PluginStage {
        Objects.requireNonNull(name);
        Objects.requireNonNull(provider);
        Objects.requireNonNull(arguments);
    }

    @Override
    public String stageName() {
        return name;
    }

    /** A new instance of the stage, for one sequence. */
    public SamplerStage create() {
        return provider.create(name, arguments);
    }
}
