package forge.lib.grammar;

import java.util.List;

/**
 * A parsed Lark expression: what {@link LarkGrammar} reads from a definition and
 * {@link LarkEmitter} writes as GBNF.
 */
sealed interface LarkNode
        permits LarkNode.Lit, LarkNode.Range, LarkNode.Re, LarkNode.Ref, LarkNode.Seq, LarkNode.Alt, LarkNode.Rep {

    record Lit(String text, boolean caseless) implements LarkNode {}

    record Range(int from, int to) implements LarkNode {}

    record Re(String regex, int pos) implements LarkNode {}

    record Ref(String name, int pos) implements LarkNode {}

    record Seq(List<LarkNode> items) implements LarkNode {}

    record Alt(List<LarkNode> alternatives) implements LarkNode {}

    /** {@code max} -1: no bound. */
    record Rep(LarkNode item, int min, int max) implements LarkNode {}

    /** A rule's or terminal's definition, and where it stands in the source. */
    record Def(LarkNode body, int pos) {}
}
