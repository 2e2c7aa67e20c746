<?php
// PHP built-in server router for MediaWiki: static files are served as they are, every other
// request goes to MediaWiki's entry point (index.php, api.php, load.php...) with the
// LocalSettings.php named by WG_MW_CONF.
define('MW_CONFIG_FILE', getenv('WG_MW_CONF'));
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$file = realpath($_SERVER['DOCUMENT_ROOT'] . $path);
if ($file !== false && is_file($file) && substr($file, -4) !== '.php') {
    return false;
}
$entry = ($file !== false && is_file($file)) ? $file : $_SERVER['DOCUMENT_ROOT'] . '/index.php';
$_SERVER['SCRIPT_NAME'] = '/' . basename($entry);
$_SERVER['SCRIPT_FILENAME'] = $entry;
chdir(dirname($entry));
require $entry;
