module com.googlecode.ipv6 {
    exports com.googlecode.ipv6;

}
