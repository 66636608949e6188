import Foundation
import ImageProxyCore
import Testing

/// ``ProxyEnvironment``: the environment in, the flags out, as a pure function.
@Suite("image-proxy configuration from the environment: the mapping")
struct ProxyEnvironmentTests {
    private func flags(_ environment: [String: String], _ commandLine: [String] = []) throws -> [String] {
        try ProxyEnvironment.settings(environment: environment, commandLine: commandLine).arguments
    }

    @Test func everyFlagCanComeFromOurPrefixAndTheCommandLineWins() throws {
        let environment = [
            "IMAGE_PROXY_PORT": "9000", "IMAGE_PROXY_ALLOW_ORIGIN": "https://a.test/, https://b.test/", "IMAGE_PROXY_ONLY_PRESETS": "true",
            "IMAGE_PROXY_JPEG_PROGRESSIVE": "false", "IMAGE_PROXY_KEEP_COPYRIGHT": "1", "IMAGE_PROXY_MAX_AGE": "60", "PATH": "/usr/bin",
        ]
        #expect(try flags(environment) == [
            "--port", "9000", "--allow-origin", "https://a.test/", "--allow-origin", "https://b.test/", "--max-age", "60",
            "--only-presets", "--keep-copyright",
        ])
        #expect(try flags(environment, ["--port", "1", "--allow-origin=https://c.test/", "--max-age", "5"]) == ["--only-presets", "--keep-copyright"])
        #expect(try flags(["IMAGE_PROXY_STRIP_METADATA": "false"]) == ["--no-strip-metadata"], "an invertible switch turned off")
        #expect(ProxyFlag.all.map(\.environmentVariable).contains("IMAGE_PROXY_MAX_CONCURRENT_TRANSFORMS"))
    }

    @Test func badValuesAreErrorsNamingTheVariableAndNeverShowingASecret() throws {
        let bool = #expect(throws: ProxyError.self) { try flags(["IMAGE_PROXY_ONLY_PRESETS": "maybe"]) }
        #expect(bool?.code == "invalid_configuration" && bool?.message.contains("IMAGE_PROXY_ONLY_PRESETS") == true)
        let pairs = #expect(throws: ProxyError.self) {
            try flags(["IMAGE_PROXY_COMPAT": "imgproxy", "IMGPROXY_KEY": "0a0b,0c0d", "IMGPROXY_SALT": "5e5f"])
        }
        #expect(pairs?.message.contains("IMGPROXY_KEY") == true && pairs?.message.contains("0a0b") == false)
        let cases: [(String, String)] = [
            ("IMGPROXY_SIGNATURE_SIZE", "33"), ("IMGPROXY_SIGNATURE_SIZE", "eight"), ("IMGPROXY_BIND", "/tmp/imgproxy.sock"),
            ("IMGPROXY_ALLOWED_SOURCES", "https://*.example.com/"), ("IMGPROXY_QUALITY", "0"), ("IMGPROXY_FORMAT_QUALITY", "jpeg:80"),
            ("IMGPROXY_SECRET", "bearer-token"), ("IMGPROXY_PATH_PREFIX", "/img"), ("IMGPROXY_LOG_LEVEL", "loud"),
            ("IMGPROXY_MAX_SRC_RESOLUTION", "-1"), ("IMGPROXY_DOWNLOAD_TIMEOUT", "0"), ("IMGPROXY_SALT", "5e5f"),
        ]
        for (name, value) in cases {
            let error = #expect(throws: ProxyError.self, "\(name)=\(value)") { try flags(["IMAGE_PROXY_COMPAT": "imgproxy", name: value]) }
            #expect(error?.message.contains(name) == true, "\(String(describing: error))")
        }
        let secret = #expect(throws: ProxyError.self) { try flags(["IMAGE_PROXY_COMPAT": "imgproxy", "IMGPROXY_SECRET": "bearer-token"]) }
        #expect(secret?.message.contains("bearer-token") == false)
    }

    @Test func imgproxySettingsAreReadInCompatModeOnly() throws {
        let environment = [
            "IMGPROXY_KEY": "943b421c9eb07c83,1234abcd", "IMGPROXY_SALT": "520f986b998545b4,5678", "IMGPROXY_SIGNATURE_SIZE": "8",
            "IMGPROXY_TRUSTED_SIGNATURES": "abc,def", "IMGPROXY_BIND": ":8081", "IMGPROXY_WORKERS": "4", "IMGPROXY_TTL": "3600",
            "IMGPROXY_DOWNLOAD_TIMEOUT": "5", "IMGPROXY_LOG_LEVEL": "warn", "IMGPROXY_ALLOWED_SOURCES": "https://img.test/,local://",
            "IMGPROXY_BASE_URL": "https://cdn.test/", "IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/srv/images", "IMGPROXY_MAX_SRC_RESOLUTION": "16.8",
            "IMGPROXY_MAX_SRC_FILE_SIZE": "1048577", "IMGPROXY_ARGUMENTS_SEPARATOR": ";", "IMGPROXY_PRESETS": "default=rs:fit:300:300,thumb=s:50",
            "IMGPROXY_ONLY_PRESETS": "false", "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "rs,q", "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true",
            "IMGPROXY_MAX_RESULT_DIMENSION": "4000", "IMGPROXY_QUALITY": "75", "IMGPROXY_FORMAT_QUALITY": "jpeg=70,AVIF=50",
            "IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_ENFORCE_AVIF": "1", "IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_KEEP_COPYRIGHT": "true",
            "IMGPROXY_STRIP_COLOR_PROFILE": "false", "IMGPROXY_WATERMARK_PATH": "/srv/mark.png", "IMGPROXY_WATERMARK_URL": "https://img.test/m.png",
        ]
        #expect(try flags(environment).isEmpty, "IMGPROXY_* is read with --compat imgproxy only")
        let compat = try ProxyEnvironment.settings(environment: environment, commandLine: ["--compat", "imgproxy"])
        #expect(compat.arguments == [
            "--key", "943b421c9eb07c83", "--key", "1234abcd", "--salt", "520f986b998545b4", "--salt", "5678",
            "--signature-size", "8", "--trusted-signature", "abc", "--trusted-signature", "def",
            "--host", "0.0.0.0", "--port", "8081", "--max-concurrent-transforms", "4", "--source-timeout", "5.0", "--max-age", "3600",
            "--log-level", "warning", "--allow-origin", "https://img.test/", "--base-url", "https://cdn.test/",
            "--local-root", "/srv/images", "--max-source-megapixels", "16", "--max-source-mb", "2",
            "--arguments-separator", ";", "--preset", "default=rs:fit:300:300", "--preset", "thumb=s:50",
            "--allowed-processing-option", "rs", "--allowed-processing-option", "q", "--allow-security-options",
            "--max-result-dimension", "4000", "--quality", "75", "--quality", "jpeg=70", "--quality", "avif=50",
            "--auto-webp", "--enforce-avif", "--no-strip-metadata", "--keep-copyright", "--keep-color-profile", "--watermark", "/srv/mark.png",
        ])
        #expect(compat.notes.isEmpty)
        // IMAGE_PROXY_COMPAT turns it on too; our prefix beats imgproxy's, the command line beats both.
        let ours = try flags(["IMAGE_PROXY_COMPAT": "imgproxy", "IMAGE_PROXY_MAX_AGE": "10", "IMGPROXY_TTL": "20", "IMGPROXY_BIND": "[::1]:9"], ["--port", "7"])
        #expect(ours == ["--max-age", "10", "--compat", "imgproxy"], "the command's --port keeps IMGPROXY_BIND's host out too")
        #expect(try flags(["IMAGE_PROXY_COMPAT": "imgproxy", "IMGPROXY_BIND": "[::1]:9"]) == ["--compat", "imgproxy", "--host", "::1", "--port", "9"])
    }

    @Test func settingsThatCannotBeHonouredAreNotes() throws {
        let settings = try ProxyEnvironment.settings(
            environment: [
                "IMGPROXY_MAX_SRC_FILE_SIZE": "0", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true", "IMGPROXY_USE_ETAG": "true",
                "IMGPROXY_READ_REQUEST_TIMEOUT": "10", "IMGPROXY_MAX_RESULT_DIMENSION": "0",
            ],
            commandLine: ["--compat=imgproxy"])
        #expect(settings.flags.isEmpty)
        #expect(settings.notes.map { String($0.prefix { $0 != ":" }) }.sorted() == [
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "IMGPROXY_MAX_RESULT_DIMENSION", "IMGPROXY_MAX_SRC_FILE_SIZE", "IMGPROXY_READ_REQUEST_TIMEOUT",
        ])
    }

    @Test func everyMappedFlagExistsAndEveryVariableIsListedOnce() {
        let names = Set(ProxyFlag.all.map(\.name))
        for variable in ImgproxyVariable.table {
            #expect(variable.flags.allSatisfy(names.contains), "\(variable.environmentVariable) → \(variable.flags)")
        }
        let variables = ImgproxyVariable.table.map(\.environmentVariable)
        #expect(Set(variables).count == variables.count)
        #expect(Set(ProxyFlag.all.map(\.name)).count == ProxyFlag.all.count)
    }

    @Test func imgproxysOutputDefaultsMapAndEveryOtherVariableIsNamed() throws {
        let settings = try ProxyEnvironment.settings(
            environment: [
                "IMGPROXY_PREFERRED_FORMATS": "webp,png", "IMGPROXY_SKIP_PROCESSING_FORMATS": "gif", "IMGPROXY_AUTO_ROTATE": "false",
                "IMGPROXY_WATERMARK_OPACITY": "0.5", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "5", "IMGPROXY_USE_LINEAR_COLORSPACE": "false",
                "IMGPROXY_PNG_QUANTIZE": "true", "IMGPROXY_SENTRY_DSN": "https://sentry.test/1", "IMGPROXY_MADE_UP": "1",
            ],
            commandLine: ["--compat=imgproxy"])
        #expect(settings.arguments == [
            "--preferred-format", "webp", "--preferred-format", "png", "--skip-processing-format", "gif", "--no-auto-rotate",
            "--watermark-opacity", "0.5", "--shutdown-timeout", "5.0",
        ])
        #expect(settings.notes.map { String($0.prefix { $0 != ":" }) }.sorted() == ["IMGPROXY_MADE_UP", "IMGPROXY_PNG_QUANTIZE", "IMGPROXY_SENTRY_DSN"])
        let opacity = #expect(throws: ProxyError.self) { try flags(["IMAGE_PROXY_COMPAT": "imgproxy", "IMGPROXY_WATERMARK_OPACITY": "1.5"]) }
        #expect(opacity?.message.contains("IMGPROXY_WATERMARK_OPACITY") == true)
    }
}
