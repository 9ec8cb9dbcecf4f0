package forge.lib.grammar;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Timeout;

/**
 * JSON Schema to GBNF on arbitrary schemas: a schema becomes a grammar, or is refused with a
 * {@link SchemaGrammarException} (invalid, or not enforceable); nothing else is thrown, nothing
 * takes seconds, and every grammar made passes {@link GbnfGrammar#check}, since the server hands
 * it to llama.cpp. Each schema goes through {@link JsonSchemaGrammar#convert} alone and, as two
 * tools' arguments do, twice into one builder.
 *
 * <p>Inputs are JSON texts read as the server reads request bodies (at most 64 deep); other
 * bytes are no schema and are skipped. In the normal build this runs the committed corpus
 * ({@code JsonSchemaGrammarFuzzTestInputs/convert/}: the server's schema corpus and the schemas of
 * {@link JsonSchemaGrammarTest}); under {@code bench/fuzz.sh} Jazzer fuzzes it.
 */
class JsonSchemaGrammarFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        JSON.getFactory()
                .setStreamReadConstraints(
                        StreamReadConstraints.builder().maxNestingDepth(64).build());
    }

    @DictionaryEntries({
        "\"type\"",
        "\"object\"",
        "\"array\"",
        "\"string\"",
        "\"integer\"",
        "\"number\"",
        "\"boolean\"",
        "\"null\"",
        "\"properties\"",
        "\"required\"",
        "\"additionalProperties\"",
        "\"items\"",
        "\"prefixItems\"",
        "\"minItems\"",
        "\"maxItems\"",
        "\"uniqueItems\"",
        "\"minLength\"",
        "\"maxLength\"",
        "\"pattern\"",
        "\"format\"",
        "\"date\"",
        "\"time\"",
        "\"date-time\"",
        "\"uuid\"",
        "\"ipv4\"",
        "\"minimum\"",
        "\"maximum\"",
        "\"exclusiveMinimum\"",
        "\"exclusiveMaximum\"",
        "\"enum\"",
        "\"const\"",
        "\"anyOf\"",
        "\"oneOf\"",
        "\"allOf\"",
        "\"$ref\"",
        "\"#/$defs/\"",
        "\"#/definitions/\"",
        "\"$defs\"",
        "\"definitions\"",
        "\"nullable\"",
        "\"not\"",
        "\"^\"",
        "\"$\"",
        "[a-z]",
        "\\\\d",
        "{2,}",
        "(?:",
        "1e308",
        "-9223372036854775809"
    })
    @FuzzTest(maxDuration = "30s")
    @Timeout(10)
    void convert(byte[] data) {
        Map<String, Object> schema = schema(data);
        if (schema == null) {
            return;
        }
        try {
            GbnfGrammar.check(JsonSchemaGrammar.convert(schema));
        } catch (SchemaGrammarException refused) {
            return; // then the builder refuses it too
        }
        JsonSchemaGrammar builder = JsonSchemaGrammar.builder();
        String first = builder.addSchema("tool0-args", schema);
        String second = builder.addSchema("tool1-args", schema);
        builder.addRule("root", first + " | " + second);
        GbnfGrammar.check(builder.build());
    }

    /** The schema {@code data} holds as the server would read it (booleans as {} and {"not": {}}), or null. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> schema(byte[] data) {
        JsonNode node;
        try {
            // Strict UTF-8 first, as the server decodes bodies: Jackson would guess UTF-16 or UTF-32 from the bytes.
            node = JSON.readTree(StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(data))
                    .toString());
        } catch (CharacterCodingException | JacksonException notJson) {
            return null;
        }
        if (node == null || !(node.isObject() || node.isBoolean())) {
            return null;
        }
        if (node.isBoolean()) {
            return node.asBoolean() ? Map.of() : Map.of("not", Map.of());
        }
        return JSON.convertValue(node, LinkedHashMap.class);
    }
}
