#!/usr/bin/env bash
# Jinjava against forge.template.jinja, as recorded in ../src/main/java/forge/template/jinja/package-info.java.
# Needs a tree where both exist: commit 6e76336 (toolkit merged, generic still on Jinjava, the
# interpreter's sources beside it). Usage: measure.sh WORKTREE_AT_6e76336 [MAVEN_REPO]
set -euo pipefail
tree="$(cd "$1" && pwd)"; repo="${2:-$HOME/.m2/repository}"; here="$(cd "$(dirname "$0")" && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}" MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow"
out="$(mktemp -d)"
(cd "$tree" && mvn -B -q -Dmaven.repo.local="$repo" -pl templates/generic,templates/testkit -am package -DskipTests \
  && mvn -B -q -Dmaven.repo.local="$repo" -pl templates/generic dependency:build-classpath -Dmdep.outputFile="$out/cp.txt")
cp="$tree/templates/generic/target/classes:$tree/templates/testkit/target/classes:$tree/templates/toolkit/target/classes"
cp="$cp:$tree/forge.api/target/classes:$(tr ':' '\n' < "$out/cp.txt" | grep -v forgelm | paste -sd:)"
"$JAVA_HOME/bin/javac" -nowarn -cp "$cp" -d "$out/classes" $(find "$tree/templates/jinja/src/main/java/forge" -name '*.java') "$here/Bench.java" "$here/Start.java"
cp="$cp:$out/classes"
"$JAVA_HOME/bin/java" -Xmx1g -cp "$cp" Bench "$tree/templates/golden" 11 20
for i in 1 2 3; do for e in jinjava interpreter; do
  /usr/bin/time -f "$e: max RSS %M KB, wall %e s" "$JAVA_HOME/bin/java" -cp "$cp" Start "$e" "$tree/templates/golden"
done; done
