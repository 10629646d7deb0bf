package io.sluice.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.UnaryOperator;

/**
 * Where a rules file is read from: a file, or a resource inside a WAR. {@link #stamp()} is the cheap check a reload
 * makes (modification time and size); {@link #read()} reads the whole text, at most {@value #MAX_BYTES} bytes of UTF-8.
 */
public interface RulesSource {

    /** Rules files larger than this ({@value} bytes, 1 MiB) are refused. */
    int MAX_BYTES = 1 << 20;

    /** @return the name in logs and error messages, such as the file path */
    String name();

    /**
     * @return a value that changes when the content changes, such as modification time and size; compared with
     *     {@code equals}, never parsed
     * @throws IOException when the source cannot be examined (a reload then keeps the previous rules)
     */
    Object stamp() throws IOException;

    /** @return the whole text */
    String read() throws IOException;

    /** @return a file on disk */
    static RulesSource file(Path path) {
        return new RulesSource() {
            @Override
            public String name() {
                return path.toString();
            }

            @Override
            public Object stamp() throws IOException {
                BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
                return a.lastModifiedTime().toMillis() + "/" + a.size();
            }

            @Override
            public String read() throws IOException {
                if (!Files.isRegularFile(path)) {        // a FIFO would block, /dev/zero never end
                    throw new IOException("not a regular file");
                }
                try (InputStream in = Files.newInputStream(path)) {
                    byte[] bytes = in.readNBytes(MAX_BYTES + 1);     // bounded even if it grows meanwhile
                    if (bytes.length > MAX_BYTES) {
                        throw new IOException("larger than " + MAX_BYTES + " bytes");
                    }
                    return decode(bytes);
                }
            }

            @Override
            public String toString() {
                return name();
            }
        };
    }

    /** {@code ServletContext::getResource}: the resource at a path inside the WAR, or null. */
    @FunctionalInterface
    interface Resources {
        URL resource(String path) throws MalformedURLException;
    }

    /**
     * The {@code rules} parameter's value in a web application: {@code /WEB-INF/...} inside the WAR (a file, so
     * reloadable, when the WAR is exploded), anything else a file path.
     *
     * @param realPath {@code ServletContext::getRealPath}: the file behind a path of an exploded WAR, or null
     * @param resources {@code ServletContext::getResource}
     * @return the source, or null when {@code value} names nothing in the WAR or is no valid path
     */
    static RulesSource inWebApp(UnaryOperator<String> realPath, Resources resources, String value) {
        try {
            if (value.startsWith("/WEB-INF/")) {
                String real = realPath.apply(value);
                if (real != null && Files.isRegularFile(Path.of(real))) {
                    return file(Path.of(real));
                }
                URL url = resources.resource(value);
                return url == null ? null : url(value, url);
            }
            return file(Path.of(value));
        } catch (MalformedURLException | InvalidPathException e) {
            return null;
        }
    }

    /** @return a resource such as {@code ServletContext.getResource("/WEB-INF/sluice-rules.yaml")} */
    static RulesSource url(String name, URL url) {
        return new RulesSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Object stamp() throws IOException {
                URLConnection c = url.openConnection();
                c.setUseCaches(false);
                Object stamp = c.getLastModified() + "/" + c.getContentLengthLong();
                c.getInputStream().close();
                return stamp;
            }

            @Override
            public String read() throws IOException {
                URLConnection c = url.openConnection();
                c.setUseCaches(false);
                try (InputStream in = c.getInputStream()) {
                    byte[] bytes = in.readNBytes(MAX_BYTES + 1);
                    if (bytes.length > MAX_BYTES) {
                        throw new IOException("larger than " + MAX_BYTES + " bytes");
                    }
                    return decode(bytes);
                }
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    private static String decode(byte[] bytes) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(in)
                    .toString();
        } catch (CharacterCodingException e) {      // its own message is only "Input length = 1"
            int at = in.position();
            throw new IOException("not valid UTF-8 at byte " + at
                    + (at < bytes.length ? " (0x" + Integer.toHexString(bytes[at] & 0xff) + ")" : ""), e);
        }
    }
}
