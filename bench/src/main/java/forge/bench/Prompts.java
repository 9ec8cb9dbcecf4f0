package forge.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The requests of the workloads. Every request fixes the work: greedy sampling,
 * {@code ignore_eos} and {@code max_tokens}, so both servers generate exactly that many tokens
 * whatever the (random-weight) model says.
 */
public final class Prompts {

    /** The seed system's request: a short coding question, as an editor integration sends it. */
    public static final String SEED_SYSTEM = "You are a helpful coding assistant. Answer concisely.";

    public static final String SEED_USER =
            "Write a Python function that returns the n-th Fibonacci number iteratively.";

    private static final String[] RULES = {
        "Always answer in the language the user writes in, and keep code comments in English.",
        "Prefer the standard library of the language in use; add a dependency only when the user asks for it.",
        "When you change a file, show the smallest diff that does the job and explain why it is needed.",
        "Never invent APIs: if you are not sure a function exists, say so and suggest how to check.",
        "Write tests next to the code they test, one test class per class, and make every test able to fail.",
        "Keep functions short, name things for what they mean, and document the why rather than the what.",
        "Handle errors at the boundary where they can be understood; do not swallow exceptions silently.",
        "Use immutable data where you can, and make shared mutable state explicit and synchronised.",
        "Respect the project's formatter and style guide; do not reformat code you did not change.",
        "When a request is ambiguous, state the assumption you make before the answer, in one sentence.",
        "For shell commands, quote variables, fail on errors, and never run destructive commands without asking.",
        "Explain performance claims with a measurement: what was measured, how, on which machine, and the numbers.",
    };

    private static final int SHARED_RULES = 35;

    private Prompts() {}

    /**
     * A system prompt of about 800 tokens (Qwen2 vocabulary), shared by the {@code shared}
     * workload's clients as an editor integration's fixed instructions are.
     */
    public static String sharedSystem() {
        StringBuilder sb = new StringBuilder(
                        "You are Forge, an expert programming assistant working inside the user's editor. ")
                .append("Follow these rules in every answer.\n");
        // 35 numbered rules: 802 tokens with the Qwen2 vocabulary (llama-server's /tokenize), so
        // with the chat template, a user message and the generated tokens a request fits in the
        // 1024 cells per slot of -c 8192 -np 8.
        for (int n = 0; n < SHARED_RULES; n++) {
            sb.append(n + 1).append(". ").append(RULES[n % RULES.length]).append('\n');
        }
        return sb.toString();
    }

    /**
     * The shared system prompt of one session: {@link #sharedSystem()} opened by the session's
     * number, so no server has seen it before the session's first request. Concurrent clients of one
     * session share it, as editor agents started together share their instructions.
     */
    public static String sharedSystem(int session) {
        return "Session " + session + ". " + sharedSystem();
    }

    /**
     * The system prompt of session {@code session} of the {@code sessions} workload: as
     * {@link #sharedSystem(int)}, numbered apart from the {@code shared} workload's sessions.
     */
    public static String sessionSystem(int session) {
        return "Editor session " + session + ". " + sharedSystem();
    }

    /** A distinct short user message for client {@code client} in round {@code round}. */
    public static String userMessage(int round, int client) {
        return "Task " + round + "-" + client + ": write a function that sorts a list of " + (client + 2)
                + " tuples by their element number " + (round % 3) + ", with a unit test.";
    }

    /**
     * A chat completion request body.
     *
     * @param stream also asks for the final usage chunk ({@code stream_options.include_usage})
     */
    public static ObjectNode chat(String model, String system, String user, int maxTokens, boolean stream) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("model", model);
        var messages = body.putArray("messages");
        messages.addObject().put("role", "system").put("content", system);
        messages.addObject().put("role", "user").put("content", user);
        body.put("max_tokens", maxTokens);
        body.put("ignore_eos", true);
        body.put("temperature", 0.0);
        body.put("stream", stream);
        if (stream) {
            body.putObject("stream_options").put("include_usage", true);
        }
        return body;
    }
}
