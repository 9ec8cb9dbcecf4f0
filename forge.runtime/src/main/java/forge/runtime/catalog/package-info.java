/**
 * The model catalog: which GGUF files the server answers for, by canonical id and alias; which
 * chat template each gets; and loading on first use.
 *
 * <h2>Design</h2>
 * <ul>
 * <li>Registration reads only the GGUF metadata (pure Java, milliseconds) and selects the chat
 *     template then, so {@code /v1/models} and the startup log show it before any load.</li>
 * <li>A model is loaded by its first request; concurrent first requests wait for one load. A
 *     loaded model is a {@link forge.runtime.catalog.ServedModel}: weights, one
 *     {@link forge.runtime.engine.Engine}, one {@link forge.api.template.ChatTemplate}.</li>
 * <li>Requests name models, never paths: nothing outside the registered files can be opened.</li>
 * </ul>
 *
 * {@snippet :
 * ModelCatalog catalog = new ModelCatalog(backend, selector, EngineConfig.defaults(), "");
 * catalog.add(Path.of("qwen2.5-0.5b-instruct-q8_0.gguf"), List.of("qwen"));
 * ServedModel qwen = catalog.serve(catalog.find("qwen").orElseThrow());
 * ChatGeneration g = qwen.chat(chatPrompt, options);
 * }
 */
package forge.runtime.catalog;
