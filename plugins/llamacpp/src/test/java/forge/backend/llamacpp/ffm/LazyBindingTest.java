package forge.backend.llamacpp.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import forge.backend.llamacpp.LlamaHome;
import java.lang.foreign.SymbolLookup;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Handles are made on first call, yet a library lacking a function still fails at load. */
class LazyBindingTest {

    @Test
    void loadingMakesOnlyTheHandlesItCalls() {
        LlamaLibrary.load(LlamaHome.lib());
        int all = Llama.functions();
        assertTrue(all > 90, "the bindings name every function they call: " + all);
        // load() calls llama_version, the two default-params functions of the layout check,
        // llama_log_set, ggml_backend_load, llama_backend_init and llama_print_system_info.
        assertTrue(
                LlamaLibrary.handlesAtLoad() <= 10,
                "load made " + LlamaLibrary.handlesAtLoad() + " of " + all
                        + " handles; the rest wait for their first call");
        Llama.llama_max_parallel_sequences();
        Llama.llama_max_parallel_sequences();
        assertEquals(1, Llama.made("llama_max_parallel_sequences"), "a second call makes no handle");
    }

    @Test
    void bindMakesTheNamedHandlesNowAndOnce() {
        LlamaLibrary.load(LlamaHome.lib());
        // Nothing calls llama_backend_free (the libraries stay loaded for the process): only bind makes its handle.
        assertEquals(0, Llama.made("llama_backend_free"));
        Llama.bind(List.of("llama_backend_free", "ggml_threadpool_pause"));
        assertEquals(1, Llama.made("llama_backend_free"), "made by bind, before any call");
        assertEquals(1, Llama.made("ggml_threadpool_pause"), "a function called by address too");
        Llama.bind(List.of("llama_backend_free"));
        assertEquals(1, Llama.made("llama_backend_free"), "a handle is made once");
    }

    @Test
    void bindRefusesAnUnknownFunctionBeforeMakingAnyHandle() {
        LlamaLibrary.load(LlamaHome.lib());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Llama.bind(List.of("llama_model_meta_val_str", "llama_no_such")));
        assertEquals("no binding of llama_no_such", e.getMessage());
        assertEquals(0, Llama.made("llama_model_meta_val_str"), "nothing was made");
    }

    @Test
    void everyFunctionIsLookedUpAtLoadAndAMissingOneIsNamed() {
        LlamaLibrary.load(LlamaHome.lib());
        SymbolLookup real = LlamaLibrary.lookup();
        assertEquals(
                List.of(), Llama.missingSymbols(real), "the shipped natives have every function the bindings call");
        SymbolLookup lacking = name -> name.equals("llama_decode") || name.equals("llama_sampler_init_dry")
                ? Optional.empty()
                : real.find(name);
        assertEquals(List.of("llama_decode", "llama_sampler_init_dry"), Llama.missingSymbols(lacking));
    }
}
