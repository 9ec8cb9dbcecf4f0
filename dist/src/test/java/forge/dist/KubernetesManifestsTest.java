package forge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.gatewayapi.v1.HTTPRoute;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every manifest under {@code k8s/} parses into Kubernetes' typed object model (fabric8's), with no
 * field the model does not know (fabric8 keeps unknown fields aside instead of refusing them, so the
 * test walks every object for them): a misspelt field or a wrong type fails the build. The
 * InferencePool, a custom resource fabric8 has no class for, is read against the v1 API's fields
 * here. Then what the manifests promise is checked across them: readiness on {@code /health},
 * liveness apart from it, a termination grace that covers the preStop pause and ForgeLM's own
 * shutdown grace, the image's user and read-only root, the models volume, and a pool, picker and
 * route that name each other and select the Deployment's pods on its port.
 */
class KubernetesManifestsTest {

    static final Path DIR = Path.of("k8s");
    static final KubernetesSerialization K8S = new KubernetesSerialization();

    static List<Object> parse(Path file) throws IOException {
        List<Object> objects = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            Object parsed = K8S.unmarshal(in);
            if (parsed instanceof Collection<?> many) {
                objects.addAll(many);
            } else {
                objects.add(parsed);
            }
        }
        return objects;
    }

    static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @Test
    void everyManifestParsesIntoTheModelWithNoUnknownField() throws Exception {
        List<Path> files = manifests();
        assertEquals(3, files.size(), "forgelm.yaml, forgelm-cuda.yaml, inference-gateway.yaml: " + files);
        for (Path file : files) {
            List<Object> objects = parse(file);
            assertFalse(objects.isEmpty(), file.toString());
            for (Object o : objects) {
                assertTrue(o instanceof HasMetadata, file + ": not a Kubernetes object: " + o);
                HasMetadata r = (HasMetadata) o;
                String where = file.getFileName() + " " + r.getKind() + "/"
                        + r.getMetadata().getName();
                if (r instanceof GenericKubernetesResource g) {
                    // Only the custom resource fabric8 has no class for is allowed to stay generic.
                    assertEquals("InferencePool", g.getKind(), where + ": a kind the model does not know");
                    inferencePool(g);
                } else {
                    List<String> unknown = new ArrayList<>();
                    unknownFields(r, where, unknown);
                    assertEquals(List.of(), unknown, "fields the Kubernetes model does not know");
                }
            }
        }
    }

    /** A typo in a field's name lands in some object's additionalProperties: collects every such field's path. */
    static void unknownFields(Object o, String path, List<String> found) throws Exception {
        if (o == null || o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Enum<?>) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                unknownFields(e, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                unknownFields(e.getValue(), path + "." + e.getKey(), found);
            }
            return;
        }
        if (!(o instanceof KubernetesResource) && !o.getClass().getPackageName().startsWith("io.fabric8")) {
            return;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0
                    || m.getDeclaringClass() == Object.class
                    || !(m.getName().startsWith("get") || m.getName().startsWith("is"))) {
                continue;
            }
            Object value = m.invoke(o);
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    found.add(path + ": " + extra.keySet());
                }
            } else {
                unknownFields(value, path + "." + m.getName(), found);
            }
        }
    }

    /** The v1 InferencePool's fields, for the one kind fabric8 has no class for. */
    record InferencePoolSpec(LabelSelector selector, List<PortRef> targetPorts, EndpointPickerRef endpointPickerRef) {}

    record LabelSelector(Map<String, String> matchLabels) {}

    record PortRef(int number) {}

    record EndpointPickerRef(String group, String kind, String name, PortRef port, String failureMode) {}

    static final ObjectMapper STRICT = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    static InferencePoolSpec inferencePool(GenericKubernetesResource pool) {
        assertEquals("inference.networking.k8s.io/v1", pool.getApiVersion());
        assertEquals(
                Map.of(),
                pool.getAdditionalProperties().entrySet().stream()
                        .filter(e -> !e.getKey().equals("spec"))
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
                "an InferencePool has metadata and spec only");
        InferencePoolSpec spec =
                STRICT.convertValue(pool.getAdditionalProperties().get("spec"), InferencePoolSpec.class);
        assertFalse(spec.selector().matchLabels().isEmpty());
        assertEquals(1, spec.targetPorts().size());
        assertNotNull(spec.endpointPickerRef().name());
        assertTrue(spec.endpointPickerRef().failureMode() == null
                || List.of("FailOpen", "FailClose")
                        .contains(spec.endpointPickerRef().failureMode()));
        return spec;
    }

    static <T> List<T> all(Path file, Class<T> type) throws IOException {
        return parse(file).stream().filter(type::isInstance).map(type::cast).toList();
    }

    static <T extends HasMetadata> T one(Path file, Class<T> type, String name) throws IOException {
        return all(file, type).stream()
                .filter(r -> r.getMetadata().getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(file + " has no " + type.getSimpleName() + " " + name));
    }

    static String env(Container c, String name) {
        return c.getEnv().stream()
                .filter(e -> e.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + c.getName()))
                .getValue();
    }

    /** Seconds of a --shutdown-grace value in FORGE_SERVE_ARGS (e.g. "120s"). */
    static int shutdownGrace(String serveArgs) {
        Matcher m = Pattern.compile("--shutdown-grace (\\d+)s").matcher(serveArgs);
        assertTrue(m.find(), "the replica's drain grace is set: " + serveArgs);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void theReplicasAreReadyWhenServingDrainOnStopAndRunAsTheImageDoes() throws Exception {
        for (String file : List.of("forgelm.yaml", "forgelm-cuda.yaml")) {
            Deployment d = one(DIR.resolve(file), Deployment.class, "forgelm");
            PodSpec pod = d.getSpec().getTemplate().getSpec();
            assertEquals(
                    d.getSpec().getSelector().getMatchLabels().get("app"),
                    d.getSpec().getTemplate().getMetadata().getLabels().get("app"));
            Container c = pod.getContainers().getFirst();
            int port = c.getPorts().getFirst().getContainerPort();
            assertEquals(8080, port, "the image's port (FORGE_PORT)");

            assertEquals(
                    "/health",
                    c.getReadinessProbe().getHttpGet().getPath(),
                    file + ": ready = model loaded and serving");
            assertTrue(
                    c.getLivenessProbe().getHttpGet() == null
                            || !"/health"
                                    .equals(c.getLivenessProbe().getHttpGet().getPath()),
                    file + ": liveness apart from readiness, or a loading or draining replica is killed");

            long preStop = c.getLifecycle().getPreStop().getSleep().getSeconds();
            int grace = shutdownGrace(env(c, "FORGE_SERVE_ARGS"));
            assertTrue(preStop > 0, file);
            assertTrue(
                    pod.getTerminationGracePeriodSeconds() > preStop + grace,
                    file + ": Kubernetes waits for the preStop pause and ForgeLM's drain: "
                            + pod.getTerminationGracePeriodSeconds());

            // The image's user (OciImage.USER) and its read-only root with its writable places mounted.
            assertEquals(10001L, pod.getSecurityContext().getRunAsUser());
            assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
            List<String> mounts =
                    c.getVolumeMounts().stream().map(m -> m.getMountPath()).toList();
            assertTrue(mounts.containsAll(List.of("/models", "/var/cache/forge", "/tmp")), file + ": " + mounts);
            assertTrue(env(c, "FORGE_MODEL").startsWith("/models/"), file);
            for (var m : c.getVolumeMounts()) {
                assertTrue(
                        pod.getVolumes().stream().anyMatch(v -> v.getName().equals(m.getName())),
                        file + ": no volume " + m.getName());
            }
        }
        Service s = one(DIR.resolve("forgelm.yaml"), Service.class, "forgelm");
        assertEquals(Map.of("app", "forgelm"), s.getSpec().getSelector());
        assertEquals("http", s.getSpec().getPorts().getFirst().getTargetPort().getStrVal());
    }

    @Test
    void thePoolSelectsTheReplicasAndThePickerAndRouteNameIt() throws Exception {
        Path gateway = DIR.resolve("inference-gateway.yaml");
        Deployment replicas = one(DIR.resolve("forgelm.yaml"), Deployment.class, "forgelm");
        GenericKubernetesResource poolResource =
                all(gateway, GenericKubernetesResource.class).getFirst();
        InferencePoolSpec pool = inferencePool(poolResource);
        String poolName = poolResource.getMetadata().getName();

        Map<String, String> podLabels =
                replicas.getSpec().getTemplate().getMetadata().getLabels();
        pool.selector()
                .matchLabels()
                .forEach((k, v) -> assertEquals(v, podLabels.get(k), "the pool selects the replicas' pods by " + k));
        assertEquals(
                replicas.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getContainers()
                        .getFirst()
                        .getPorts()
                        .getFirst()
                        .getContainerPort(),
                pool.targetPorts().getFirst().number());

        Service eppService =
                one(gateway, Service.class, pool.endpointPickerRef().name());
        assertEquals(
                pool.endpointPickerRef().port().number(),
                eppService.getSpec().getPorts().getFirst().getPort());
        Deployment epp = one(gateway, Deployment.class, pool.endpointPickerRef().name());
        assertEquals(
                eppService.getSpec().getSelector(),
                epp.getSpec().getTemplate().getMetadata().getLabels());
        List<String> args =
                epp.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs();
        assertEquals(poolName, args.get(args.indexOf("--pool-name") + 1));

        // The picker's configuration: every profile's pluginRef is a declared plugin, and it scores
        // by the queue and the KV-cache use that ForgeLM exports under vLLM's names.
        String configFile = args.get(args.indexOf("--config-file") + 1);
        ConfigMap config = one(
                gateway,
                ConfigMap.class,
                epp.getSpec().getTemplate().getSpec().getVolumes().stream()
                        .filter(v -> v.getConfigMap() != null)
                        .findFirst()
                        .orElseThrow()
                        .getConfigMap()
                        .getName());
        JsonNode picker = new ObjectMapper(new YAMLFactory())
                .readTree(config.getData().get(Path.of(configFile).getFileName().toString()));
        assertEquals("EndpointPickerConfig", picker.get("kind").asText());
        List<String> types = new ArrayList<>();
        picker.get("plugins").forEach(p -> types.add(p.get("type").asText()));
        assertTrue(types.containsAll(List.of("queue-scorer", "kv-cache-utilization-scorer")), types.toString());
        for (JsonNode profile : picker.get("schedulingProfiles")) {
            for (JsonNode ref : profile.get("plugins")) {
                assertTrue(types.contains(ref.get("pluginRef").asText()), "undeclared plugin " + ref);
            }
        }

        HTTPRoute route = one(gateway, HTTPRoute.class, "forgelm");
        var backend = route.getSpec().getRules().getFirst().getBackendRefs().getFirst();
        assertEquals("InferencePool", backend.getKind());
        assertEquals("inference.networking.k8s.io", backend.getGroup());
        assertEquals(poolName, backend.getName());
        assertNotEquals(0, route.getSpec().getParentRefs().size());
    }

    @Test
    void aMisspeltFieldFailsTheCheck() throws Exception {
        // The check itself: a manifest with one field misspelt is caught.
        String good = Files.readString(DIR.resolve("forgelm.yaml"));
        String bad = good.replace("readinessProbe:", "readinesProbe:");
        assertNotEquals(good, bad);
        Path tmp = Files.createTempFile("bad", ".yaml");
        try {
            Files.writeString(tmp, bad);
            List<String> unknown = new ArrayList<>();
            for (Object o : parse(tmp)) {
                unknownFields(o, "", unknown);
            }
            assertEquals(1, unknown.size(), unknown.toString());
            assertTrue(unknown.getFirst().contains("readinesProbe"), unknown.toString());
        } finally {
            Files.delete(tmp);
        }
    }
}
