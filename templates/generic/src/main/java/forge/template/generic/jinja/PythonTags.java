package forge.template.generic.jinja;

import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateSyntaxException;
import com.hubspot.jinjava.lib.tag.ElseIfTag;
import com.hubspot.jinjava.lib.tag.ElseTag;
import com.hubspot.jinjava.lib.tag.ForTag;
import com.hubspot.jinjava.lib.tag.IfTag;
import com.hubspot.jinjava.lib.tag.Tag;
import com.hubspot.jinjava.objects.SafeString;
import com.hubspot.jinjava.tree.Node;
import com.hubspot.jinjava.tree.TagNode;
import com.hubspot.jinjava.util.ForLoop;
import com.hubspot.jinjava.util.LengthLimitingStringBuilder;
import java.io.Serial;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jinja2's {@code for} and {@code if} in place of Jinjava's, which differ where chat templates
 * look: Jinjava's {@code for} ignores a loop filter ({@code for k in d if k != 'x'}) and an
 * {@code else} block, has no {@code loop.previtem}/{@code loop.nextitem}/{@code loop.changed},
 * iterates a string as one item and {@code None} as nothing (Python: its characters, and a
 * {@code TypeError}), keeps assignments from one iteration to the next (Jinja2 starts every
 * iteration afresh) and lets a {@code break} inside an {@code if} render the rest of that
 * {@code if}; its {@code if} finds the string {@code "false"} false. Jinjava has no
 * {@code filter} block at all.
 */
final class PythonTags {

    private PythonTags() {
    }

    /** {@code {% for targets in iterable [if filter] %}...[{% else %}...]{% endfor %}}. */
    static final class For extends ForTag {
        @Serial
        private static final long serialVersionUID = 1L;

        private static final Pattern HEADER = Pattern.compile(
                "\\s*\\(?\\s*([A-Za-z_]\\w*(?:\\s*,\\s*[A-Za-z_]\\w*)*)\\s*,?\\s*\\)?\\s+in\\s+(.*)", Pattern.DOTALL);

        /** A parsed header: the names bound per item, the iterable's expression, the filter's (or null). */
        private record Header(List<String> targets, String iterable, String filter) {
        }

        /** Headers by their text: a template has few, and every render reads them again. */
        private final Map<String, Header> headers = new ConcurrentHashMap<>();

        @Override
        public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
            Header header = headers.computeIfAbsent(tagNode.getHelpers(), h -> header(h, interpreter));
            Object iterable = interpreter.resolveELExpression(header.iterable(), tagNode.getLineNumber());
            List<Object> items = new ArrayList<>();
            for (Object item : PythonValues.iterate(iterable)) {
                items.add(interpreter.wrap(item));
            }
            List<Node> body = tagNode.getChildren();
            List<Node> orElse = List.of();
            for (int i = 0; i < body.size(); i++) {
                if (body.get(i) instanceof TagNode t && t.getName().equals(ElseTag.TAG_NAME)) {
                    orElse = body.subList(i + 1, body.size());
                    body = body.subList(0, i);
                    break;
                }
            }
            LengthLimitingStringBuilder out = new LengthLimitingStringBuilder(interpreter.getConfig().getMaxOutputSize());
            try (var _ = interpreter.enterScope()) {
                Context context = interpreter.getContext();
                if (header.filter() != null) {
                    List<Object> kept = new ArrayList<>(items.size());
                    for (Object item : items) {
                        bind(context, header.targets(), item);
                        if (PythonValues.truthy(interpreter.resolveELExpression(header.filter(), tagNode.getLineNumber()))) {
                            kept.add(item);
                        }
                        context.getScope().clear();
                    }
                    items = kept;
                }
                Loop loop = new Loop(items);
                while (loop.hasNext()) {
                    Object item = loop.next();
                    // each iteration starts afresh: what the last one set is gone
                    context.getScope().clear();
                    context.put(LOOP, loop);
                    bind(context, header.targets(), item);
                    for (Node node : body) {
                        out.append(node.render(interpreter));
                        if (loop.isContinued()) {
                            break;
                        }
                    }
                }
            }
            if (items.isEmpty()) {
                for (Node node : orElse) {
                    out.append(node.render(interpreter));
                }
            }
            return out.toString();
        }

        private static Header header(String helpers, JinjavaInterpreter interpreter) {
            Matcher m = HEADER.matcher(helpers);
            if (!m.matches()) {
                throw new TemplateSyntaxException(interpreter, helpers, "Tag 'for' expects 'names in iterable', got: " + helpers);
            }
            List<String> targets = Arrays.stream(m.group(1).split(",")).map(String::strip).toList();
            String rest = m.group(2).strip();
            if (rest.endsWith(" recursive") || rest.equals("recursive")) {
                throw new TemplateSyntaxException(interpreter, helpers, "recursive loops are not supported");
            }
            int at = topLevelIf(rest);
            return at < 0 ? new Header(targets, rest, null)
                    : new Header(targets, rest.substring(0, at).strip(), rest.substring(at + 2).strip());
        }

        /** Where the loop filter's {@code if} starts: the first {@code if} word outside strings and brackets. */
        static int topLevelIf(String s) {
            int depth = 0;
            char quote = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (quote != 0) {
                    if (c == '\\') {
                        i++;
                    } else if (c == quote) {
                        quote = 0;
                    }
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '(' || c == '[' || c == '{') {
                    depth++;
                } else if (c == ')' || c == ']' || c == '}') {
                    depth--;
                } else if (depth == 0 && c == 'i' && s.startsWith("if", i)
                        && (i == 0 || !isNameChar(s.charAt(i - 1)))
                        && (i + 2 == s.length() || !isNameChar(s.charAt(i + 2)))) {
                    return i;
                }
            }
            return -1;
        }

        private static boolean isNameChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_';
        }

        /** Binds one item to the loop's names, unpacking it as Python does when there are several. */
        private static void bind(Context context, List<String> targets, Object item) {
            if (targets.size() == 1) {
                context.put(targets.getFirst(), item);
                return;
            }
            List<?> parts = switch (item) {
                case Map.Entry<?, ?> e -> Arrays.asList(e.getKey(), e.getValue());
                case List<?> l -> l;
                case String s -> PythonValues.iterate(s);
                case SafeString s -> PythonValues.iterate(s);
                case Map<?, ?> m -> new ArrayList<>(m.keySet());
                default -> throw new PythonValues.PythonError(
                        "cannot unpack non-iterable " + PythonValues.typeName(item) + " object");
            };
            if (parts.size() < targets.size()) {
                throw new PythonValues.PythonError(
                        "not enough values to unpack (expected " + targets.size() + ", got " + parts.size() + ")");
            }
            if (parts.size() > targets.size()) {
                throw new PythonValues.PythonError("too many values to unpack (expected " + targets.size() + ")");
            }
            for (int i = 0; i < targets.size(); i++) {
                context.put(targets.get(i), parts.get(i));
            }
        }
    }

    /**
     * Jinja2's {@code loop}: Jinjava's counters ({@code index}, {@code first}, {@code last},
     * {@code length}, {@code revindex}, {@code cycle}) plus {@code previtem}, {@code nextitem}
     * and {@code changed}; public because templates reach it by reflection.
     */
    public static final class Loop extends ForLoop {
        private final List<Object> items;
        private List<Object> lastChanged;

        Loop(List<Object> items) {
            super(items.iterator(), items.size());
            this.items = items;
        }

        /** The item before this one; Undefined on the first. */
        public Object getPrevitem() {
            int i = getIndex0();
            return i > 0 ? items.get(i - 1) : null;
        }

        /** The item after this one; Undefined on the last. */
        public Object getNextitem() {
            int i = getIndex0() + 1;
            return i < items.size() ? items.get(i) : null;
        }

        /** {@code loop.changed(*values)}: true when the values differ from those of the previous call. */
        public boolean changed(Object... values) {
            List<Object> now = Arrays.asList(values);
            if (lastChanged != null && PythonValues.eq(lastChanged, now)) {
                return false;
            }
            lastChanged = now;
            return true;
        }
    }

    /** {@code {% filter f(args)|g %}...{% endfilter %}}, which Jinjava lacks: the block's output through the filters. */
    static final class FilterBlock implements Tag {
        @Serial
        private static final long serialVersionUID = 1L;

        /** Where the block's output waits for the filter expression, in a scope of its own. */
        private static final String INPUT = "__forge_filter_block";

        @Override
        public String getName() {
            return "filter";
        }

        @Override
        public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
            try (var _ = interpreter.enterScope()) {
                LengthLimitingStringBuilder out = new LengthLimitingStringBuilder(interpreter.getConfig().getMaxOutputSize());
                for (Node node : tagNode.getChildren()) {
                    out.append(node.render(interpreter));
                }
                interpreter.getContext().put(INPUT, out.toString());
                return PythonValues.str(interpreter.resolveELExpression(INPUT + "|" + tagNode.getHelpers().strip(),
                        tagNode.getLineNumber()));
            }
        }
    }

    /** {@code {% if %}} with Python's truth, and a loop's {@code break}/{@code continue} ending its branch at once. */
    static final class If extends IfTag {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        public String interpret(TagNode tagNode, JinjavaInterpreter interpreter) {
            if (tagNode.getHelpers().isBlank()) {
                throw new TemplateSyntaxException(interpreter, tagNode.getMaster().getImage(), "Tag 'if' expects expression");
            }
            LengthLimitingStringBuilder out = new LengthLimitingStringBuilder(interpreter.getConfig().getMaxOutputSize());
            boolean execute = isPositiveIfElseNode(tagNode, interpreter);
            for (Node node : tagNode.getChildren()) {
                if (node instanceof TagNode tag && (tag.getName().equals(ElseIfTag.TAG_NAME) || tag.getName().equals(ElseTag.TAG_NAME))) {
                    if (execute) {
                        break; // the branch that ran is over
                    }
                    execute = tag.getName().equals(ElseTag.TAG_NAME) || isPositiveIfElseNode(tag, interpreter);
                    continue;
                }
                if (execute) {
                    out.append(node.render(interpreter));
                    if (interpreter.getContext().get(LOOP) instanceof ForLoop loop && loop.isContinued()) {
                        break;
                    }
                }
            }
            return out.toString();
        }

        private static final String LOOP = ForTag.LOOP;

        @Override
        public boolean isPositiveIfElseNode(TagNode tagNode, JinjavaInterpreter interpreter) {
            return PythonValues.truthy(interpreter.resolveELExpression(tagNode.getHelpers(), tagNode.getLineNumber(),
                    tagNode.getStartPosition()));
        }
    }
}
