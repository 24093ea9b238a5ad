extension WebSocketServer {
    /// Whether the configuration asks for HTTPS and WSS.
    public var usesTLS: Bool {
        configuration.tlsCertificatePath != nil || configuration.tlsPrivateKeyPath != nil
    }

    /// Checks the configured TLS certificate and key files the way `start()` does before it
    /// hands them to libwebsockets, so an application can refuse them before slower start-up
    /// work. Whether the key matches the certificate only `start()` can tell.
    /// - Throws: `WebSocketError.listenFailed` naming the file and the fault.
    /// - Note: any thread.
    public func checkTLSFiles() throws {
        _ = try TLSFiles.check(certificate: configuration.tlsCertificatePath, privateKey: configuration.tlsPrivateKeyPath)
    }
}
