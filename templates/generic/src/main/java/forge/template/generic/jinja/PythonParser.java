package forge.template.generic.jinja;

import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.COLON;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.DOT;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.EXTENSION;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.IDENTIFIER;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.LBRACK;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.LPAREN;
import static jinjava.de.odysseus.el.tree.impl.Scanner.Symbol.RBRACK;

import com.hubspot.jinjava.el.TruthyTypeConverter;
import com.hubspot.jinjava.el.ext.AbsOperator;
import com.hubspot.jinjava.el.ext.AstTuple;
import com.hubspot.jinjava.el.ext.ExtendedParser;
import com.hubspot.jinjava.el.ext.ExtendedScanner;
import com.hubspot.jinjava.el.ext.NamedParameterOperator;
import com.hubspot.jinjava.el.ext.PowerOfOperator;
import com.hubspot.jinjava.objects.SafeString;
import java.io.Serial;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import jinjava.de.odysseus.el.ExpressionFactoryImpl;
import jinjava.de.odysseus.el.misc.NumberOperations;
import jinjava.de.odysseus.el.misc.TypeConverter;
import jinjava.de.odysseus.el.tree.Bindings;
import jinjava.de.odysseus.el.tree.TreeStore;
import jinjava.de.odysseus.el.tree.impl.Builder;
import jinjava.de.odysseus.el.tree.impl.Cache;
import jinjava.de.odysseus.el.tree.impl.Parser;
import jinjava.de.odysseus.el.tree.impl.Scanner;
import jinjava.de.odysseus.el.tree.impl.Scanner.Symbol;
import jinjava.de.odysseus.el.tree.impl.ast.AstBinary;
import jinjava.de.odysseus.el.tree.impl.ast.AstDot;
import jinjava.de.odysseus.el.tree.impl.ast.AstIdentifier;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.de.odysseus.el.tree.impl.ast.AstParameters;
import jinjava.de.odysseus.el.tree.impl.ast.AstUnary;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ExpressionFactory;

/**
 * Jinjava's expression parser with Jinja2's grammar where the two read the same text differently:
 * <ul>
 * <li>{@code not} binds looser than comparisons: {@code not a|length == 1} is
 *     {@code not (a|length == 1)}, where Jinjava read {@code (not a|length) == 1};</li>
 * <li>{@code and}, {@code ==}, {@code !=}, {@code in}, {@code +}, {@code *}, {@code /},
 *     {@code %} and {@code **} are Python's ({@link PythonOperators});</li>
 * <li>a keyword argument takes a whole expression: {@code namespace(i=messages|length - 1)};</li>
 * <li>{@code i+1} adds (Jinjava scanned {@code +1} as a unary plus and failed);</li>
 * <li>filters and tests chain in any order ({@code x|length is odd});</li>
 * <li>a trailing comma is allowed ({@code (1,)}, {@code f(a,)}), and {@code (a, b)} is a tuple;</li>
 * <li>subscripts slice with steps ({@code messages[::-1]}, {@code s[1:-1]}); {@code items.0} is
 *     {@code items[0]};</li>
 * <li>EL's operator words ({@code lt}, {@code div}, {@code empty}...) are names, as in Jinja2;</li>
 * <li>string literals decode all of Python's escapes ({@code '\x41'}, {@code '\t'}, Unicode ones),
 *     where Jinjava knew six and refused the rest.</li>
 * </ul>
 * Jinjava parses expressions when they are first evaluated and caches the trees; {@link #factory()}
 * is the expression factory that builds them with this parser.
 */
final class PythonParser extends ExtendedParser {

    private PythonParser(Builder context, String input) {
        super(context, input);
    }

    /** Jinjava's expression factory, parsing with this parser, converting values with Python's truth and {@code str}. */
    static ExpressionFactory factory() {
        return new ExpressionFactoryImpl(new TreeStore(new Grammar(), new Cache(1000)), new PythonConverter());
    }

    /** The tree builder: Jinjava's features (method calls, varargs), this parser. */
    private static final class Grammar extends Builder {
        @Serial
        private static final long serialVersionUID = 1L;

        Grammar() {
            super(Feature.METHOD_INVOCATIONS, Feature.VARARGS);
        }

        @Override
        protected Parser createParser(String expression) {
            return new PythonParser(this, expression);
        }
    }

    @Override
    protected Scanner createScanner(String expression) {
        return new PythonScanner(expression);
    }

    // and_expr: not_expr ('and' not_expr)*
    @Override
    protected AstNode and(boolean required) throws Scanner.ScanException, ParseException {
        AstNode v = not(required);
        if (v == null) {
            return null;
        }
        while (getToken().getSymbol() == Symbol.AND) {
            consumeToken();
            v = createAstBinary(v, not(true), PythonOperators.AND);
        }
        return v;
    }

    // not_expr: 'not' not_expr | comparison
    private AstNode not(boolean required) throws Scanner.ScanException, ParseException {
        if (getToken().getSymbol() == Symbol.NOT) {
            consumeToken();
            return createAstUnary(not(true), AstUnary.NOT);
        }
        return eq(required);
    }

    @Override
    protected AstNode eq(boolean required) throws Scanner.ScanException, ParseException {
        AstNode v = cmp(required);
        if (v == null) {
            return null;
        }
        while (true) {
            switch (getToken().getSymbol()) {
                case EQ -> {
                    consumeToken();
                    v = createAstBinary(v, cmp(true), PythonOperators.EQ);
                }
                case NE -> {
                    consumeToken();
                    v = createAstBinary(v, cmp(true), PythonOperators.NE);
                }
                default -> {
                    return v;
                }
            }
        }
    }

    // comparison: ordering as EL has it, membership as Python's (Jinjava converted the item to the
    // type of the container's first element: 'a' in [1, 'a'] was false, 1 in ['1'] true)
    @Override
    protected AstNode cmp(boolean required) throws Scanner.ScanException, ParseException {
        AstNode v = add(required);
        if (v == null) {
            return null;
        }
        while (true) {
            Scanner.Token t = getToken();
            switch (t.getSymbol()) {
                case LT -> {
                    consumeToken();
                    v = createAstBinary(v, add(true), AstBinary.LT);
                }
                case LE -> {
                    consumeToken();
                    v = createAstBinary(v, add(true), AstBinary.LE);
                }
                case GE -> {
                    consumeToken();
                    v = createAstBinary(v, add(true), AstBinary.GE);
                }
                case GT -> {
                    consumeToken();
                    v = createAstBinary(v, add(true), AstBinary.GT);
                }
                case EXTENSION -> {
                    if (!"in".equals(t.getImage())) {
                        return v;
                    }
                    consumeToken();
                    v = createAstBinary(v, add(true), PythonOperators.IN);
                }
                case NOT -> {
                    if (!"in".equals(lookahead(0).getImage())) {
                        return v;
                    }
                    consumeToken();
                    consumeToken();
                    v = createAstBinary(v, add(true), PythonOperators.NOT_IN);
                }
                default -> {
                    return v;
                }
            }
        }
    }

    // Jinjava reads the config to choose between its old precedence and Python's: always Python's here
    @Override
    protected AstNode mul(boolean required) throws Scanner.ScanException, ParseException {
        AstNode v = filter(required);
        if (v == null) {
            return null;
        }
        while (true) {
            Scanner.Token t = getToken();
            switch (t.getSymbol()) {
                case MUL -> {
                    consumeToken();
                    v = createAstBinary(v, filter(true), PythonOperators.MUL);
                }
                case DIV -> {
                    consumeToken();
                    v = createAstBinary(v, filter(true), PythonOperators.DIV);
                }
                case MOD -> {
                    consumeToken();
                    v = createAstBinary(v, filter(true), PythonOperators.MOD);
                }
                case EXTENSION -> {
                    if (t == PowerOfOperator.TOKEN) {
                        consumeToken();
                        v = createAstBinary(v, filter(true), PythonOperators.POW);
                        continue;
                    }
                    if (getExtensionHandler(t).getExtensionPoint() != ExtensionPoint.MUL) {
                        return v;
                    }
                    v = getExtensionHandler(consumeToken()).createAstNode(v, filter(true));
                }
                default -> {
                    return v;
                }
            }
        }
    }

    @Override
    protected AstNode add(boolean required) throws Scanner.ScanException, ParseException {
        AstNode v = mul(required);
        if (v == null) {
            return null;
        }
        while (true) {
            Scanner.Token t = getToken();
            switch (t.getSymbol()) {
                case PLUS -> {
                    consumeToken();
                    v = createAstBinary(v, mul(true), PythonOperators.ADD);
                }
                case MINUS -> {
                    consumeToken();
                    v = createAstBinary(v, mul(true), AstBinary.SUB);
                }
                case EXTENSION -> {
                    if (t == AbsOperator.TOKEN) {
                        // Jinjava scans '+' before a digit as unary plus, also in 'i+1': here it can only add
                        consumeToken();
                        v = createAstBinary(v, mul(true), PythonOperators.ADD);
                        continue;
                    }
                    if (t == NamedParameterOperator.TOKEN && v instanceof AstIdentifier) {
                        // name=value: the value is a whole expression, up to the next ',' or ')'
                        consumeToken();
                        return NamedParameterOperator.HANDLER.createAstNode(v, expr(true));
                    }
                    if (getExtensionHandler(t).getExtensionPoint() != ExtensionPoint.ADD) {
                        return v;
                    }
                    v = getExtensionHandler(consumeToken()).createAstNode(v, mul(true));
                }
                default -> {
                    return v;
                }
            }
        }
    }

    /** Tokens that may start a test's one argument written without parentheses ({@code x is divisibleby 3}). */
    private static final Set<Symbol> TEST_ARGUMENT = Set.of(
            Symbol.IDENTIFIER, Symbol.STRING, Symbol.INTEGER, Symbol.FLOAT, Symbol.TRUE, Symbol.FALSE, Symbol.NULL, LBRACK);

    // unary, then any chain of '|filter(args)' and 'is [not] test args'
    @Override
    protected AstNode filter(boolean required) throws Scanner.ScanException, ParseException {
        AstNode v = unary(required);
        if (v == null) {
            return null;
        }
        while (true) {
            Scanner.Token t = getToken();
            if (t.getSymbol() == EXTENSION && "|".equals(t.getImage()) && lookahead(0).getSymbol() == IDENTIFIER) {
                consumeToken();
                String name = consumeToken().getImage();
                List<AstNode> params = new ArrayList<>(List.of(v, interpreter()));
                if (getToken().getSymbol() == LPAREN) {
                    addAll(params, params());
                }
                v = createAstMethod(createAstDot(identifier(FILTER_PREFIX + name), "filter", true), createAstParameters(params));
            } else if (t.getSymbol() == IDENTIFIER && "is".equals(t.getImage())) {
                consumeToken();
                boolean negated = getToken().getSymbol() == Symbol.NOT;
                if (negated) {
                    consumeToken();
                }
                String name = consumeToken().getImage();
                if (!isName(name)) {
                    fail("a test name");
                }
                List<AstNode> params = new ArrayList<>(List.of(v, interpreter()));
                if (getToken().getSymbol() == LPAREN) {
                    addAll(params, params());
                } else if (TEST_ARGUMENT.contains(getToken().getSymbol()) && !"is".equals(getToken().getImage())
                        || getToken().getSymbol() == EXTENSION && "{".equals(getToken().getImage())) {
                    params.add(value());
                }
                v = createAstMethod(createAstDot(identifier(EXPTEST_PREFIX + name), negated ? "evaluateNegated" : "evaluate", true),
                        createAstParameters(params));
            } else {
                return v;
            }
        }
    }

    private static void addAll(List<AstNode> to, AstParameters params) {
        for (int i = 0; i < params.getCardinality(); i++) {
            to.add(params.getChild(i));
        }
    }

    private static boolean isName(String s) {
        if (s.isEmpty() || !(Character.isLetter(s.charAt(0)) || s.charAt(0) == '_')) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isLetterOrDigit(c) && c != '_') {
                return false;
            }
        }
        return true;
    }

    // primary, then any chain of '.name', '.name(args)', '[subscript]', '[slice]'
    @Override
    protected AstNode value() throws Scanner.ScanException, ParseException {
        boolean lvalue = true;
        AstNode v = nonliteral();
        if (v == null) {
            v = literal();
            if (v == null) {
                return null;
            }
            lvalue = false;
        }
        while (true) {
            switch (getToken().getSymbol()) {
                case DOT -> {
                    consumeToken();
                    // an attribute may be spelt like one of EL's keywords (x.empty, x.div)
                    String name = consumeToken().getImage();
                    if (!isName(name)) {
                        fail(IDENTIFIER);
                    }
                    AstDot dot = createAstDot(v, name, lvalue);
                    v = getToken().getSymbol() == LPAREN ? createAstMethod(dot, params()) : dot;
                }
                case LBRACK -> v = subscript(v, lvalue);
                case FLOAT -> {
                    // items.0: EL scans '.0' as a number, Jinja2 reads an integer attribute (the item)
                    String image = getToken().getImage();
                    if (image.length() < 2 || image.charAt(0) != '.' || !image.chars().skip(1).allMatch(Character::isDigit)) {
                        return v;
                    }
                    consumeToken();
                    v = createAstDot(v, image.substring(1), lvalue);
                }
                default -> {
                    return v;
                }
            }
        }
    }

    private AstNode subscript(AstNode base, boolean lvalue) throws Scanner.ScanException, ParseException {
        consumeToken(); // [
        AstNode start = null;
        if (getToken().getSymbol() != COLON) {
            start = expr(true);
        }
        if (getToken().getSymbol() != COLON) {
            consumeToken(RBRACK);
            var bracket = createAstBracket(base, start, lvalue, true);
            return getToken().getSymbol() == LPAREN ? createAstMethod(bracket, params()) : bracket;
        }
        consumeToken(); // :
        AstNode stop = null;
        AstNode step = null;
        if (getToken().getSymbol() != COLON && getToken().getSymbol() != RBRACK) {
            stop = expr(true);
        }
        if (getToken().getSymbol() == COLON) {
            consumeToken();
            if (getToken().getSymbol() != RBRACK) {
                step = expr(true);
            }
        }
        consumeToken(RBRACK);
        return new PythonSlice(base, start, stop, step);
    }

    // Python allows a trailing comma in calls, lists and tuples: f(a,), [1, 2,], (1,)
    @Override
    protected AstParameters params(Symbol left, Symbol right) throws Scanner.ScanException, ParseException {
        consumeToken(left);
        List<AstNode> l = new ArrayList<>();
        AstNode v = expr(false);
        if (v != null) {
            l.add(v);
            while (getToken().getSymbol() == Symbol.COMMA) {
                consumeToken();
                if (getToken().getSymbol() == right) {
                    break;
                }
                l.add(expr(true));
            }
        }
        consumeToken(right);
        return createAstParameters(l);
    }

    /** A literal {@code (a, b)} is a tuple, printed as one. */
    @Override
    protected AstTuple createAstTuple(AstParameters parameters) throws Scanner.ScanException, ParseException {
        return new AstTuple(parameters) {
            @Override
            public Object eval(Bindings bindings, ELContext context) {
                return new PyTuple((List<?>) super.eval(bindings, context));
            }
        };
    }

    /** EL's conversions with Python's truth and {@code str()} ({@code ~} and string arguments). */
    static final class PythonConverter extends TruthyTypeConverter {
        @Serial
        private static final long serialVersionUID = 1L;

        @Override
        protected Boolean coerceToBoolean(Object value) {
            return PythonValues.truthy(value);
        }

        @Override
        protected String coerceToString(Object value) {
            return PythonValues.str(value);
        }
    }

    /**
     * Jinjava's scanner with Jinja2's names and Python's string literals: EL's operator words
     * ({@code lt}, {@code div}, {@code empty}...) are plain names in Jinja2, and every escape
     * Python decodes is decoded.
     */
    private static final class PythonScanner extends ExtendedScanner {
        private static final Set<String> EL_WORDS = Set.of("null", "empty", "div", "mod", "eq", "ne", "lt", "gt", "le", "ge",
                "instanceof");

        PythonScanner(String input) {
            super(input);
        }

        @Override
        protected Token keyword(String s) {
            return EL_WORDS.contains(s) ? null : super.keyword(s);
        }

        @Override
        protected Token nextString() throws ScanException {
            builder.setLength(0);
            String in = getInput();
            char quote = in.charAt(getPosition());
            int i = getPosition() + 1;
            int n = in.length();
            while (i < n) {
                char c = in.charAt(i++);
                if (c == quote) {
                    return token(Symbol.STRING, builder.toString(), i - getPosition());
                }
                if (c != '\\') {
                    builder.append(c);
                    continue;
                }
                if (i == n) {
                    break;
                }
                char e = in.charAt(i++);
                switch (e) {
                    case '\n' -> { } // a backslash at the end of a line continues the string
                    case '\\', '\'', '"' -> builder.append(e);
                    case 'n' -> builder.append('\n');
                    case 't' -> builder.append('\t');
                    case 'r' -> builder.append('\r');
                    case 'b' -> builder.append('\b');
                    case 'f' -> builder.append('\f');
                    case 'a' -> builder.append('\u0007');
                    case 'v' -> builder.append('\u000b');
                    case 'x', 'u', 'U' -> {
                        int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                        if (i + digits > n) {
                            throw new ScanException(getPosition(), "truncated \\" + e + " escape", "hex digits");
                        }
                        try {
                            builder.appendCodePoint(Integer.parseInt(in.substring(i, i + digits), 16));
                        } catch (IllegalArgumentException bad) {
                            throw new ScanException(getPosition(), "bad \\" + e + " escape", "hex digits");
                        }
                        i += digits;
                    }
                    default -> {
                        if (e >= '0' && e <= '7') { // up to three octal digits
                            int end = i;
                            while (end < n && end < i + 2 && in.charAt(end) >= '0' && in.charAt(end) <= '7') {
                                end++;
                            }
                            builder.append((char) Integer.parseInt(in.substring(i - 1, end), 8));
                            i = end;
                        } else { // Python keeps an unknown escape as written
                            builder.append('\\').append(e);
                        }
                    }
                }
            }
            throw new ScanException(getPosition(), "unterminated string", quote + " or \\");
        }
    }
}
