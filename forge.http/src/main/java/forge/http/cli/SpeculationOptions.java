package forge.http.cli;

import forge.runtime.catalog.CatalogConfig;
import forge.runtime.engine.Speculation;
import forge.runtime.engine.SyntheticAcceptance;
import java.nio.file.Path;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** {@code forge serve}'s speculative decoding, in llama-server's flags: n-gram lookup, or a draft model. */
final class SpeculationOptions extends OptionGroup {

    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);

    @Option(
            names = "--spec-type",
            paramLabel = "TYPE",
            defaultValue = "none",
            description = {
                "Speculative decoding: none (default), ngram-simple (drafts from the request's own context and output)",
                "or draft-simple (drafts by --model-draft, which implies it); verified in one batch, output unchanged.",
                "A request may turn it off or on ('speculative.n_max')."
            })
    String specType;

    @Option(
            names = "--spec-ngram-simple-size-n",
            paramLabel = "N",
            defaultValue = "" + Speculation.DEFAULT_NGRAM,
            description = "Tokens an n-gram draft's lookup matches (default: ${DEFAULT-VALUE}).")
    int specNgram;

    @Option(
            names = "--spec-ngram-simple-size-m",
            paramLabel = "N",
            defaultValue = "" + Speculation.DEFAULT_DRAFT_MAX,
            description = "The most tokens an n-gram draft holds (default: ${DEFAULT-VALUE}).")
    int specNgramMax;

    @Option(
            names = {"--spec-draft-n-max", "--draft-max", "--draft", "--draft-n"},
            paramLabel = "N",
            description = {
                "The most tokens drafted per step (default: " + Speculation.DEFAULT_MODEL_DRAFT_MAX
                        + " with a draft model,",
                "--spec-ngram-simple-size-m for n-gram drafts)."
            })
    Integer specDraftMax;

    @Option(
            names = {"--spec-draft-n-min", "--draft-min", "--draft-n-min"},
            paramLabel = "N",
            defaultValue = "0",
            description = "A shorter draft is not proposed (default: ${DEFAULT-VALUE}).")
    int specDraftMin;

    @Option(
            names = {"--spec-draft-model", "-md", "--model-draft"},
            paramLabel = "FILE",
            description = {
                "A draft model (GGUF) for speculative decoding, loaded beside each served model; its vocabulary must",
                "match the model's (a model it cannot draft for is refused at load, with the reason)."
            })
    Path draftModel;

    @Option(
            names = {"--spec-draft-p-min", "--draft-p-min"},
            paramLabel = "P",
            defaultValue = "0",
            description =
                    "A draft model's draft ends before a token less likely than this (default: ${DEFAULT-VALUE}).")
    float specDraftPMin;

    @Option(
            names = {"--spec-draft-ngl", "-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft"},
            paramLabel = "N",
            defaultValue = "auto",
            description = "The draft model's layers on a GPU: a number, auto (default) or all.")
    String draftGpuLayers;

    @Option(
            names = "--spec-synth-len",
            paramLabel = "L",
            description = {
                "Benchmarks only: accept draft tokens at random so that a step yields L tokens on average (the target's",
                "included), as llama-server's; the output is then not the model's."
            })
    Double specSynthLength;

    @Option(
            names = "--spec-synth-rates",
            paramLabel = "P0,P1,...",
            split = ",",
            description =
                    "Benchmarks only: each draft position's acceptance rate, as llama-server's (see --spec-synth-len).")
    double[] specSynthRates;

    /** {@code --spec-type} and its sizes ({@code --model-draft} alone means {@code draft-simple}). */
    Speculation speculation() {
        String type = specType.equals("none") && draftModel != null ? "draft-simple" : specType;
        return valid(() -> switch (type) {
            case "none" -> Speculation.OFF;
            case "ngram-simple", "ngram" ->
                new Speculation(specNgram, specDraftMax != null ? specDraftMax : specNgramMax, specDraftMin);
            case "draft-simple", "draft" -> {
                if (draftModel == null) {
                    throw invalid("--spec-type " + specType + " needs a draft model: --model-draft FILE");
                }
                yield Speculation.draftModel(
                        specDraftMax != null ? specDraftMax : Speculation.DEFAULT_MODEL_DRAFT_MAX,
                        specDraftMin,
                        specDraftPMin);
            }
            default ->
                throw invalid("--spec-type " + specType
                        + " is not supported: ForgeLM drafts by n-gram lookup or a draft model (none,"
                        + " ngram-simple or draft-simple)");
        });
    }

    /** {@code --model-draft} with {@code --gpu-layers-draft}, or null. */
    CatalogConfig.DraftModel draftModel() {
        if (draftModel == null) {
            return null;
        }
        if (speculation().type().equals("ngram-simple")) {
            throw invalid("--model-draft drafts with --spec-type draft-simple, not " + specType);
        }
        int layers = switch (draftGpuLayers.strip().toLowerCase(Locale.ROOT)) {
            case "auto" -> -1;
            case "all" -> Integer.MAX_VALUE;
            default ->
                atLeast(
                        0,
                        draftGpuLayers,
                        "--gpu-layers-draft must be a number of layers, auto or all: " + draftGpuLayers);
        };
        return new CatalogConfig.DraftModel(draftModel, layers);
    }

    /** {@code --spec-synth-len} / {@code --spec-synth-rates} (benchmarks only), against the drafts' maximum. */
    SyntheticAcceptance synthetic() {
        if (specSynthLength == null && specSynthRates == null) {
            return SyntheticAcceptance.OFF;
        }
        if (specSynthLength != null && specSynthRates != null) {
            throw invalid("--spec-synth-len and --spec-synth-rates are mutually exclusive");
        }
        int max = speculation().draftMax();
        SyntheticAcceptance s = valid(() -> specSynthLength != null
                ? SyntheticAcceptance.length(specSynthLength, max)
                : SyntheticAcceptance.rates(specSynthRates, max));
        LOG.warn(
                "synthetic speculative acceptance is on for benchmarking (mean length {}): the output is not the"
                        + " model's",
                s.meanLength());
        return s;
    }
}
