public enum LoaderFilePlaceholder {}
