module big.math {
    exports ch.obermuhlner.math.big;
    exports ch.obermuhlner.math.big.internal;
    exports ch.obermuhlner.math.big.stream;

}
