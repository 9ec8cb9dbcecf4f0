package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import forge.api.sampler.BuiltinStage;
import forge.api.sampler.PluginStage;
import forge.api.sampler.SamplerStage;
import forge.api.sampler.SamplerStep;
import forge.api.sampler.SamplingParams;
import forge.api.sampler.StageArguments;
import forge.api.sampler.StageParameter;
import forge.runtime.plugin.SamplerStages;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * llama-server's sampler-chain parameters, read alike by every route that speaks them: the
 * {@code samplers} order (built-in stage names and aliases, or their letters, and the stages
 * plugins contribute), the built-in stages' own fields ({@code typical_p}, {@code top_n_sigma},
 * {@code xtc_*}, {@code dry_*}, {@code mirostat*}), and the parameters of each plugin stage named.
 *
 * <p>Everything is checked here, on the request's thread, before it is admitted: an unknown stage
 * or a bad parameter is a 400 naming it, and each plugin stage is created once with its arguments
 * (then dropped) so that arguments its plugin refuses are a 400 too. The stages themselves are
 * created again per sequence, by the backend, on the engine's thread.
 */
final class SamplingChain {

    private SamplingChain() {}

    /** Steps in one chain: each is work per token, and a plugin stage an upcall. */
    static final int MAX_STEPS = 32;

    static final int MAX_BREAKERS = 64;
    static final int MAX_BREAKER_LENGTH = 256;

    /**
     * Reads the chain's fields of {@code body} into {@code sampling}: a plugin stage's parameters
     * are read (so not ignored) only when {@code samplers} names its stage, from the stages of the
     * body's context.
     *
     * @throws ApiError 400 naming the stage or field at fault; 500 when a plugin fails its own check
     */
    static SamplingParams.Builder read(Fields body, SamplingParams.Builder sampling) {
        float typicalP = Params.number(body, "typical_p", 1f, 0, 1);
        float topNSigma = Params.number(body, "top_n_sigma", -1f, -1_000_000, 1_000_000);
        SamplingParams.Xtc xtc = new SamplingParams.Xtc(
                Params.number(body, "xtc_probability", SamplingParams.Xtc.OFF.probability(), 0, 1),
                Params.number(body, "xtc_threshold", SamplingParams.Xtc.OFF.threshold(), 0, 1));
        SamplingParams.Dry off = SamplingParams.Dry.OFF;
        float dryBase = Params.number(body, "dry_base", off.base(), -1_000_000, 1_000_000);
        SamplingParams.Dry dry = new SamplingParams.Dry(
                Params.number(body, "dry_multiplier", off.multiplier(), 0, 1_000_000),
                dryBase < 1 ? off.base() : dryBase, // llama-server: a base below 1 means the default
                Params.integer(body, "dry_allowed_length", off.allowedLength(), 0, Integer.MAX_VALUE),
                Params.integer(body, "dry_penalty_last_n", off.penaltyLastN(), -1, Integer.MAX_VALUE),
                breakers(body.get("dry_sequence_breakers"), off.sequenceBreakers()));
        SamplingParams.Mirostat mirostat = new SamplingParams.Mirostat(
                Params.integer(body, "mirostat", 0, 0, 2),
                Params.number(body, "mirostat_tau", SamplingParams.Mirostat.OFF.tau(), -1_000_000, 1_000_000),
                Params.number(body, "mirostat_eta", SamplingParams.Mirostat.OFF.eta(), -1_000_000, 1_000_000));
        return sampling.typicalP(typicalP == 0 ? Float.MIN_VALUE : typicalP)
                .topNSigma(topNSigma)
                .xtc(xtc)
                .dry(dry)
                .mirostat(mirostat)
                .samplers(steps(body, body.stages()));
    }

    private static List<String> breakers(JsonNode node, List<String> fallback) {
        if (node == null || node.isNull()) {
            return fallback;
        }
        String param = "dry_sequence_breakers";
        if (!node.isArray() || node.isEmpty() || node.size() > MAX_BREAKERS) {
            throw ApiError.badRequest(
                    param, "'" + param + "' must be a non-empty array of at most " + MAX_BREAKERS + " strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode n : node) {
            if (!n.isTextual() || n.asText().isEmpty() || n.asText().length() > MAX_BREAKER_LENGTH) {
                throw ApiError.badRequest(
                        param,
                        "'" + param + "' must hold non-empty strings of at most " + MAX_BREAKER_LENGTH + " characters");
            }
            out.add(n.asText());
        }
        return out;
    }

    /** The order: an array of names, or llama.cpp's string of letters. */
    private static List<SamplerStep> steps(JsonNode body, SamplerStages stages) {
        JsonNode node = body.get("samplers");
        if (node == null || node.isNull()) {
            return BuiltinStage.DEFAULT_ORDER;
        }
        List<SamplerStep> steps = new ArrayList<>();
        if (node.isTextual()) {
            String letters = node.asText();
            if (letters.length() > MAX_STEPS) {
                throw ApiError.badRequest("samplers", "'samplers' names more than " + MAX_STEPS + " stages");
            }
            for (char c : letters.toCharArray()) {
                steps.add(BuiltinStage.byLetter(c)
                        .orElseThrow(() -> ApiError.badRequest(
                                "samplers",
                                "unknown sampler stage letter '" + c + "' in 'samplers'; the letters are "
                                        + letters())));
            }
            return steps;
        }
        if (!node.isArray() || node.size() > MAX_STEPS) {
            throw ApiError.badRequest(
                    "samplers",
                    "'samplers' must be an array of at most " + MAX_STEPS
                            + " stage names, or a string of stage letters");
        }
        Map<String, PluginStage> made = new LinkedHashMap<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode n = node.get(i);
            if (!n.isTextual()) {
                throw ApiError.badRequest("samplers", "'samplers[" + i + "]' must be a stage name");
            }
            String name = n.asText();
            var builtin = BuiltinStage.byName(name);
            if (builtin.isPresent()) {
                steps.add(builtin.get());
                continue;
            }
            SamplerStages.Stage stage = stages.find(name)
                    .orElseThrow(() -> ApiError.badRequest(
                            "samplers",
                            "unknown sampler stage '" + name + "' in 'samplers'; built in: "
                                    + Arrays.stream(BuiltinStage.values())
                                            .map(BuiltinStage::wireName)
                                            .toList() + "; from plugins: "
                                    + stages.all().stream()
                                            .map(s -> s.info().name())
                                            .toList()));
            steps.add(made.computeIfAbsent(name, k -> plugin(body, stage)));
        }
        return steps;
    }

    private static String letters() {
        StringBuilder sb = new StringBuilder();
        for (BuiltinStage s : BuiltinStage.values()) {
            sb.append(s.letter()).append('=').append(s.wireName()).append(' ');
        }
        return sb.toString().trim();
    }

    /** A plugin stage with its parameters read from the body, created once to let its plugin check them. */
    private static PluginStage plugin(JsonNode body, SamplerStages.Stage stage) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (StageParameter p : stage.info().parameters()) {
            values.put(
                    p.name(),
                    switch (p) {
                        case StageParameter.Int i ->
                            Params.longInteger(body, i.name(), "", i.defaultValue(), i.min(), i.max());
                        case StageParameter.Num x -> number(body, x);
                        case StageParameter.Bool b -> Params.bool(body, b.name(), b.defaultValue());
                        case StageParameter.Text t -> {
                            String s = Params.string(body, t.name(), "", t.maxLength());
                            yield s == null ? t.defaultValue() : s;
                        }
                    });
        }
        String name = stage.info().name();
        PluginStage made = new PluginStage(name, stage.provider(), new StageArguments(values));
        SamplerStage check;
        try {
            check = made.create();
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(name, "sampler stage '" + name + "' refuses its parameters: " + e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            throw stageFailed(name, "could not be created: " + e);
        }
        if (check == null) {
            throw stageFailed(name, "its plugin made no stage");
        }
        return made;
    }

    static ApiError stageFailed(String stage, String why) {
        return new ApiError(500, "server_error", "sampler_stage_failed", null, "sampler stage '" + stage + "' " + why);
    }

    private static Double number(JsonNode body, StageParameter.Num p) {
        JsonNode v = body.get(p.name());
        if (v == null || v.isNull()) {
            return p.defaultValue();
        }
        if (!v.isNumber() || !Double.isFinite(v.asDouble())) {
            throw ApiError.badRequest(p.name(), "'" + p.name() + "' must be a number");
        }
        if (v.asDouble() < p.min() || v.asDouble() > p.max()) {
            throw ApiError.badRequest(
                    p.name(),
                    "'" + p.name() + "' must be between " + p.min() + " and " + p.max() + ", got " + v.asText());
        }
        return v.asDouble();
    }
}
