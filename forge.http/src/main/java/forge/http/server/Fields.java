package forge.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import forge.runtime.plugin.SamplerStages;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A request body as a door reads it: the JSON object, which records every field its parser
 * reads, and the run's context the reading needs (the plugin sampler stages a {@code samplers}
 * may name, the fetcher of image URLs when the server allows them). What was never read had no effect: {@link #ignored()} names it, for
 * {@code X-Forge-Ignored-Params} and {@code --strict}. No door keeps a list of the fields it
 * handles; reading one is handling it.
 *
 * <p>A read is a {@link #get} or {@link #path} of the field (so {@code has}, {@code hasNonNull}
 * and every {@link Params} reader count). Only the body's own fields are recorded, and those of
 * the objects a door opens with {@link #nested} (Responses' {@code reasoning} and {@code text},
 * Anthropic's {@code output_config}), named by their path; what lies deeper is the door's to
 * check. A door says what it read yet ignores with {@link #unused} ({@code best_of} above 1, a
 * hosted tool), and checks a field whose effect belongs to other doors through
 * {@link #unrecorded} ({@code user}).
 */
@SuppressWarnings("unchecked") // ObjectNode narrows JsonNode's generic deepCopy(); this class inherits that as it is
final class Fields extends ObjectNode {

    /** Parameters that change nothing when they hold these values (llama-server's, on by default). */
    private static final Map<String, String> NEUTRAL = Map.of("cache_prompt", "true");

    private final String at;
    private final SamplerStages stages;
    private final ImageFetcher imageFetcher;
    private final Set<String> read = new HashSet<>();
    private final List<Fields> nested = new ArrayList<>();
    private final SortedSet<String> unused = new TreeSet<>();

    private Fields(JsonNode object, String at, SamplerStages stages, ImageFetcher imageFetcher) {
        super(Json.MAPPER.getNodeFactory(), new LinkedHashMap<>());
        object.properties().forEach(e -> _children.put(e.getKey(), e.getValue()));
        this.at = at;
        this.stages = stages;
        this.imageFetcher = imageFetcher;
    }

    /** {@code body} to be read, where no plugin sampler stage is installed. */
    static Fields of(JsonNode body) {
        return of(body, SamplerStages.NONE);
    }

    /**
     * {@code body} to be read at a server whose requests' {@code samplers} may name the plugin
     * stages of {@code stages}. A body that is no object reads as an empty one (every door
     * then refuses its missing required fields).
     */
    static Fields of(JsonNode body, SamplerStages stages) {
        return of(body, stages, null);
    }

    /**
     * {@code body} to be read as {@link #of(JsonNode, SamplerStages)} reads it, its image URLs
     * fetched by {@code imageFetcher} (null: image URLs are refused).
     */
    static Fields of(JsonNode body, SamplerStages stages, ImageFetcher imageFetcher) {
        return new Fields(body.isObject() ? body : Json.MAPPER.createObjectNode(), "", stages, imageFetcher);
    }

    /** The plugin sampler stages this request may name. */
    SamplerStages stages() {
        return stages;
    }

    /** The reader of this request's images, which fetches image URLs where the server allows it. */
    Images images() {
        return new Images(imageFetcher);
    }

    @Override
    public JsonNode get(String name) {
        read.add(name);
        return super.get(name);
    }

    @Override
    public JsonNode path(String name) {
        read.add(name);
        return super.path(name);
    }

    /**
     * The object at {@code name}, whose own fields are recorded as this body's are and named by
     * their path ({@code reasoning.summary}) when unread; null when absent, a 400 when not an
     * object.
     */
    Fields nested(String name) {
        JsonNode object = Params.object(this, name, at);
        if (object == null) {
            return null;
        }
        Fields fields = new Fields(object, Params.path(at, name), stages, imageFetcher);
        nested.add(fields);
        return fields;
    }

    /** Names {@code what} (a field, or a part of one) as read but without effect here. */
    void unused(String what) {
        unused.add(Params.path(at, what));
    }

    /**
     * A view of {@code node} whose reads are not recorded: for a check every door makes of a
     * field that only some doors use (the others still name it ignored).
     */
    static JsonNode unrecorded(JsonNode node) {
        return node instanceof Fields f ? new ObjectNode(Json.MAPPER.getNodeFactory(), f._children) : node;
    }

    /**
     * The fields never read, and those read without effect, sorted by path. A field that holds the
     * value it has anyway ({@code "cache_prompt": true}) is not among them.
     */
    SortedSet<String> ignored() {
        SortedSet<String> ignored = new TreeSet<>(unused);
        _children.forEach((name, value) -> {
            if (!read.contains(name)
                    && !(NEUTRAL.containsKey(name) && NEUTRAL.get(name).equals(Json.string(value)))) {
                ignored.add(Params.path(at, name));
            }
        });
        nested.forEach(n -> ignored.addAll(n.ignored()));
        return ignored;
    }
}
