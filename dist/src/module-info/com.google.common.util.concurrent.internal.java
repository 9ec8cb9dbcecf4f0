module com.google.common.util.concurrent.internal {
    exports com.google.common.util.concurrent.internal;

}
