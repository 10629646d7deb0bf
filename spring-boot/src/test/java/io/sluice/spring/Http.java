package io.sluice.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Requests to an application over a real socket, with the JDK's client. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private Http() {}

    static HttpResponse<String> get(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).GET());
    }

    static HttpResponse<String> get(int port, String path, String header, String value) {
        return send(HttpRequest.newBuilder(uri(port, path)).header(header, value).GET());
    }

    static HttpResponse<String> delete(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).DELETE());
    }

    static HttpResponse<String> delete(int port, String path, String header, String value) {
        return send(HttpRequest.newBuilder(uri(port, path)).header(header, value).DELETE());
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
