// Types for `virtual:pwa-register`, the registration module vite-plugin-pwa generates.
/// <reference types="vite-plugin-pwa/vanillajs" />
