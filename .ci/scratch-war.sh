#!/usr/bin/env bash
# Checks the release artifacts as a user gets them (docs/release.md):
#   1. deploys every published module (jar, sources jar, Javadoc jar, pom), the parent and sluice-bom with
#      `mvn -Prelease deploy` into a temporary file repository (nothing is installed into ~/.m2), and checks that the
#      repository holds exactly those, and that sluice-bom lists every published module at the root's version;
#   2. builds a scratch WAR in a temporary directory: the demo's application code (war-demo/src/main, not its build),
#      whose pom has nothing of Sluice but the <dependency> blocks README.md gives (the quick start's, and the JAX-RS
#      section's), resolving io.sluice only from that file repository, with a fresh local repository;
#   3. runs that WAR in embedded Jetty 12 (war-demo's DemoServer, run as a single-file program on a class path of
#      Jetty and Jersey) and checks the demo's contract with war-demo/src/test/sh/check-demo.sh;
#   4. resolves sluice-filter through an import of sluice-bom, with no version of its own.
# Third-party artifacts come from ~/.m2/repository where they are (read as a remote repository, releases only: it
# never serves io.sluice SNAPSHOTs), else from Maven Central. So it runs offline on a machine that has built Sluice
# and run this once, and on a fresh CI machine that can reach Central.
# Usage: .ci/scratch-war.sh   (KEEP=1 keeps the temporary directory; MVN_ARGS passes options to the deploy: not -o, which refuses to deploy)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)

work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-scratch.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "scratch-war: kept $work"; fi
}
trap cleanup EXIT
fail() { echo "scratch-war: FAIL: $*" >&2; exit 1; }
say() { echo "scratch-war: $* ($(( $(date +%s) - start )) s)"; }

# the first <version> of a pom is the project's (the parent's, in a module)
pom_version() { sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$1" | head -1; }
prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
plugin_version() { grep -A1 "<artifactId>$1</artifactId>" pom.xml | sed -n 's:.*<version>\(.*\)</version>.*:\1:p' | head -1; }
version=$(pom_version pom.xml)
published=(core redis http micrometer cdi filter jaxrs client spring-boot quarkus-health quarkus)

# --- 0. the BOM agrees with the reactor -------------------------------------------------------------------------
[ "$(pom_version bom/pom.xml)" = "$version" ] || fail "bom/pom.xml has version $(pom_version bom/pom.xml), the root $version"
for m in $(sed -n 's:.*<module>\(.*\)</module>.*:\1:p' pom.xml); do
  case $m in examples|examples/*|war-demo|benchmarks|benchmarks/*|bom) continue ;; esac
  printf '%s\n' "${published[@]}" | grep -qx "$m" || fail "module $m is neither in this script's published list nor excluded"
  grep -q "<artifactId>sluice-$m</artifactId>" bom/pom.xml || fail "bom/pom.xml lacks sluice-$m"
done

# --- 1. deploy into a file repository ---------------------------------------------------------------------------
repo=$work/repo
say "deploying $version to $repo"
# shellcheck disable=SC2086
mvn -B -q -Prelease deploy -DskipTests -Dmaven.install.skip=true \
  -DaltDeploymentRepository="scratch::file://$repo" ${MVN_ARGS:-} > "$work/deploy.log" 2>&1 \
  || { tail -60 "$work/deploy.log"; fail "mvn -Prelease deploy"; }
for m in "${published[@]}"; do
  d=$repo/io/sluice/sluice-$m/$version
  # the jar's name ends in the version (0.1.0) or a SNAPSHOT's build number (0.1.0-20261127.120000-1)
  for kind in '[0-9].jar' -sources.jar -javadoc.jar '[0-9].pom'; do
    compgen -G "$d/sluice-$m-*$kind" > /dev/null || fail "no sluice-$m-*$kind in $d"
  done
done
compgen -G "$repo/io/sluice/sluice-bom/$version/sluice-bom-*.pom" > /dev/null || fail "sluice-bom not deployed"
compgen -G "$repo/io/sluice/sluice-parent/$version/sluice-parent-*.pom" > /dev/null || fail "sluice-parent not deployed"
unexpected=$(ls "$repo/io/sluice" | grep -vxE "sluice-(parent|bom|$(IFS='|'; echo "${published[*]}"))" || true)
[ -z "$unexpected" ] || fail "deployed but not published: $unexpected"
say "deployed: $(ls "$repo/io/sluice" | tr '\n' ' ')"

# --- settings: io.sluice from the file repository only -----------------------------------------------------------
cat > "$work/settings.xml" <<EOF
<settings>
  <localRepository>$work/local</localRepository>
  <profiles>
    <profile>
      <id>scratch</id>
      <repositories>
        <repository>
          <id>sluice-scratch</id><url>file://$repo</url>
          <releases><enabled>true</enabled></releases><snapshots><enabled>true</enabled></snapshots>
        </repository>
        <repository>
          <id>m2-cache</id><url>file://$HOME/.m2/repository</url>
          <releases><enabled>true</enabled><checksumPolicy>ignore</checksumPolicy></releases>
          <snapshots><enabled>false</enabled></snapshots>
        </repository>
      </repositories>
      <pluginRepositories>
        <pluginRepository>
          <id>m2-cache</id><url>file://$HOME/.m2/repository</url>
          <releases><enabled>true</enabled><checksumPolicy>ignore</checksumPolicy></releases>
          <snapshots><enabled>false</enabled></snapshots>
        </pluginRepository>
      </pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>scratch</activeProfile></activeProfiles>
</settings>
EOF
smvn() { mvn -B -q -s "$work/settings.xml" "$@"; }
build_classpath=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath

# --- 2. the scratch WAR: README's dependencies, the demo's code --------------------------------------------------
# the first ```xml block of a README section that holds <dependency> elements and is not a whole pom (the quick
# start's "Minimal pom.xml" comes first)
readme_deps() {
  awk -v section="$1" '
    $0 == section { in_section = 1; next }
    in_section && /^#/ { exit }
    in_section && /^```xml/ { block = ""; in_block = 1; next }
    in_block && /^```/ { if (block ~ /<dependency>/ && block !~ /<project/) { printf "%s", block; exit } in_block = 0; next }
    in_block { block = block $0 "\n" }
  ' README.md
}
quick_start=$(readme_deps "## Quick start")
jaxrs=$(readme_deps "## JAX-RS")
echo "$quick_start" | grep -q '<artifactId>sluice-filter</artifactId>' \
  || fail "README's Quick start has no <dependency> block for sluice-filter"
echo "$jaxrs" | grep -q '<artifactId>sluice-jaxrs</artifactId>' || fail "README's JAX-RS section has no sluice-jaxrs block"
echo "$quick_start$jaxrs" | grep -q "<version>$version</version>" \
  || fail "README's coordinates do not name version $version"

app=$work/app
mkdir -p "$app/src"
cp -r war-demo/src/main "$app/src/main"
cat > "$app/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>scratch</artifactId>
  <version>1</version>
  <packaging>war</packaging>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
$quick_start
$jaxrs
    <dependency>
      <groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>$(prop servlet-api.version)</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>jakarta.ws.rs</groupId><artifactId>jakarta.ws.rs-api</artifactId><version>$(prop ws-rs-api.version)</version>
      <scope>provided</scope>
    </dependency>
  </dependencies>
  <build>
    <finalName>scratch</finalName>
    <plugins>
      <!-- Maven 3.8's default plugins are too old for Java 17 (maven-war-plugin 2.2 fails): pin them -->
      <plugin><artifactId>maven-resources-plugin</artifactId><version>$(plugin_version maven-resources-plugin)</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>$(plugin_version maven-compiler-plugin)</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>$(plugin_version maven-surefire-plugin)</version></plugin>
      <plugin><artifactId>maven-war-plugin</artifactId><version>3.4.0</version></plugin>
    </plugins>
  </build>
</project>
EOF
say "building the scratch WAR"
(cd "$app" && smvn package > "$work/app.log" 2>&1) || { tail -60 "$work/app.log"; fail "the scratch WAR did not build"; }
war=$app/target/scratch.war
[ -f "$war" ] || fail "no $war"

# every Sluice jar in the WAR is one that was deployed to the file repository, byte for byte
mkdir -p "$work/unpacked" && (cd "$work/unpacked" && jar xf "$war" WEB-INF/lib)
in_war=$(ls "$work/unpacked/WEB-INF/lib" | grep '^sluice-' | sort | tr '\n' ' ')
[ "$in_war" = "sluice-core-$version.jar sluice-filter-$version.jar sluice-http-$version.jar sluice-jaxrs-$version.jar sluice-redis-$version.jar " ] \
  || fail "WEB-INF/lib's Sluice jars: $in_war"
find "$repo/io/sluice" -name '*.jar' -exec sha256sum {} + > "$work/deployed.sha256"
for jar in "$work"/unpacked/WEB-INF/lib/sluice-*.jar; do
  sum=$(sha256sum < "$jar" | cut -d' ' -f1)
  grep -q "^$sum " "$work/deployed.sha256" || fail "$(basename "$jar") is not a deployed jar"
done
say "WAR built: $in_war"

# --- 3. run it in embedded Jetty 12 and check the demo's contract ------------------------------------------------
launcher=$work/launcher
mkdir -p "$launcher"
cat > "$launcher/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId><artifactId>launcher</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.eclipse.jetty.ee10</groupId><artifactId>jetty-ee10-webapp</artifactId><version>$(prop jetty.version)</version></dependency>
    <dependency><groupId>org.eclipse.jetty.ee10</groupId><artifactId>jetty-ee10-annotations</artifactId><version>$(prop jetty.version)</version></dependency>
    <dependency><groupId>org.eclipse.jetty</groupId><artifactId>jetty-slf4j-impl</artifactId><version>$(prop jetty.version)</version></dependency>
    <dependency><groupId>org.glassfish.jersey.containers</groupId><artifactId>jersey-container-servlet</artifactId><version>$(prop jersey.version)</version></dependency>
    <dependency><groupId>org.glassfish.jersey.inject</groupId><artifactId>jersey-hk2</artifactId><version>$(prop jersey.version)</version></dependency>
  </dependencies>
</project>
EOF
(cd "$launcher" && smvn "$build_classpath" -Dmdep.outputFile=cp.txt > "$work/launcher.log" 2>&1) \
  || { tail -40 "$work/launcher.log"; fail "the launcher's class path did not resolve"; }
java -cp "$(cat "$launcher/cp.txt")" war-demo/src/test/java/io/sluice/demo/DemoServer.java "$war" 0 \
  > "$work/server.log" 2>&1 &
server_pid=$!
base=""
for _ in $(seq 120); do
  base=$(sed -n 's|^Sluice demo: \(http://localhost:[0-9]*\)/ .*|\1|p' "$work/server.log" | head -1)
  [ -n "$base" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; fail "the server stopped"; }
  sleep 0.5
done
[ -n "$base" ] || { cat "$work/server.log"; fail "the server did not start in 60 s"; }
say "the scratch WAR runs at $base"
bash war-demo/src/test/sh/check-demo.sh "$base" || { tail -40 "$work/server.log"; fail "the demo's contract"; }

# --- 4. the BOM: sluice-filter without a version of its own ------------------------------------------------------
bomapp=$work/bom-app
mkdir -p "$bomapp"
cat > "$bomapp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId><artifactId>bom-user</artifactId><version>1</version><packaging>pom</packaging>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>io.sluice</groupId><artifactId>sluice-bom</artifactId><version>$version</version>
        <type>pom</type><scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency><groupId>io.sluice</groupId><artifactId>sluice-filter</artifactId></dependency>
    <dependency><groupId>io.sluice</groupId><artifactId>sluice-redis</artifactId></dependency>
  </dependencies>
</project>
EOF
(cd "$bomapp" && smvn "$build_classpath" -Dmdep.outputFile=cp.txt > "$work/bom.log" 2>&1) \
  || { tail -40 "$work/bom.log"; fail "sluice-bom did not resolve sluice-filter"; }
grep -q "sluice-filter-$version.jar" "$bomapp/cp.txt" || fail "the BOM's class path lacks sluice-filter: $(cat "$bomapp/cp.txt")"
say "PASS: release artifacts deployed, scratch WAR passes the demo's contract, sluice-bom resolves"
