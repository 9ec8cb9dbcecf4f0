package forge.api.sampler;

import java.util.List;

/**
 * Contributes named sampling stages that a request can put into its chain with llama-server's
 * {@code samplers} parameter. Found by {@link java.util.ServiceLoader}
 * ({@code provides forge.api.sampler.SamplerProvider with ...}); stateless and cheap to construct.
 * The lifecycle is in the {@link forge.api.sampler package documentation}.
 */
public interface SamplerProvider {

    /** The stages this provider contributes. Called once, when the plugin is discovered. */
    List<StageInfo> stages();

    /**
     * A new instance of {@code stage} for one sequence, with its parameters read and checked
     * against their declared types and ranges.
     *
     * @param stage one of {@link #stages()}' names
     * @throws IllegalArgumentException when the arguments, together, make no sense: the request is
     *                                  refused with a 400 naming the stage and this message
     */
    SamplerStage create(String stage, StageArguments arguments);
}
