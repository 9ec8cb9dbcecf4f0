module re2j {
    exports com.google.re2j;

}
