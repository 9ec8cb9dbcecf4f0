/**
 * The loop guard: {@link forge.sampler.loopguard.LoopGuardProvider} describes the stage and its
 * parameters, {@link forge.sampler.loopguard.LoopGuard} is one sequence's instance.
 *
 * {@snippet :
 * LoopGuard guard = new LoopGuard(3, 2, 0); // ban the token that would repeat a trigram
 * guard.accept(1); guard.accept(2); guard.accept(3); guard.accept(1); guard.accept(2);
 * guard.apply(candidates); // token 3 is banned: "1 2 3" would occur a second time
 * }
 */
package forge.sampler.loopguard;
