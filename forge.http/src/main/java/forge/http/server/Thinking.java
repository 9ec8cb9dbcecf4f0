package forge.http.server;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A request's say on reasoning, in the chat template's terms: every API spells it its own way
 * (OpenAI chat's {@code reasoning_effort}, Responses' {@code reasoning.effort}, Anthropic's
 * {@code thinking}), and every template reads the same options: {@code enable_thinking}, the
 * switch of Qwen 3, Gemma 4, SmolLM3 and others; {@code reasoning_effort}, for families that
 * take an effort (gpt-oss); {@code thinking_budget}, for families that take a budget in tokens
 * (Seed-OSS). A template without such an option renders as before. Options the request gives in
 * {@code chat_template_kwargs} win.
 */
final class Thinking {

    private Thinking() {}

    /** OpenAI's efforts; {@code none} and {@code minimal} turn thinking off. */
    static final Set<String> EFFORTS = Set.of("none", "minimal", "low", "medium", "high", "xhigh");

    /**
     * {@code kwargs} with the template options an effort implies added, where the request did not
     * set them itself.
     *
     * @param effort the effort, or null when the request gave none
     * @param param  the parameter's path, for errors
     */
    static Map<String, Object> effort(Map<String, Object> kwargs, String effort, String param) {
        if (effort == null) {
            return kwargs;
        }
        if (!EFFORTS.contains(effort)) {
            throw ApiError.badRequest(
                    param,
                    "'" + param + "' must be one of none, minimal, low, medium, high, xhigh; got '" + effort + "'");
        }
        Map<String, Object> out = new HashMap<>(kwargs);
        boolean on = !effort.equals("none") && !effort.equals("minimal");
        out.putIfAbsent("enable_thinking", on);
        if (on) {
            out.putIfAbsent("reasoning_effort", effort);
        }
        return out;
    }

    /**
     * {@code kwargs} with thinking switched on or off and, when on with a budget, the budget.
     *
     * @param budget the most tokens to think, or -1 for no budget
     */
    static Map<String, Object> switched(Map<String, Object> kwargs, boolean on, int budget) {
        Map<String, Object> out = new HashMap<>(kwargs);
        out.putIfAbsent("enable_thinking", on);
        if (on && budget > 0) {
            out.putIfAbsent("thinking_budget", budget);
        }
        return out;
    }
}
