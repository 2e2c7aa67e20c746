<?php
// PHP built-in server router for MediaWiki: uploads (/images/...) are served from the data
// folder named by WG_MW_DATA, static files are served as they are, every other request goes
// to MediaWiki's entry point (index.php, api.php, load.php...) with the LocalSettings.php
// named by WG_MW_CONF.
define('MW_CONFIG_FILE', getenv('WG_MW_CONF'));
$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH));
if (strncmp($path, '/images/', 8) === 0) {
    $root = realpath(getenv('WG_MW_DATA') . '/images');
    $file = realpath($root . substr($path, 7));
    if ($root === false || $file === false || strncmp($file, $root . '/', strlen($root) + 1) !== 0 || !is_file($file)) {
        http_response_code(404);
        echo 'Not found';
        return true;
    }
    $types = ['png' => 'image/png', 'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg', 'gif' => 'image/gif',
              'webp' => 'image/webp', 'svg' => 'image/svg+xml'];
    $ext = strtolower(pathinfo($file, PATHINFO_EXTENSION));
    header('Content-Type: ' . ($types[$ext] ?? 'application/octet-stream'));
    header('Content-Length: ' . filesize($file));
    header('Cache-Control: no-store');
    readfile($file);
    return true;
}
$file = realpath($_SERVER['DOCUMENT_ROOT'] . $path);
if ($file !== false && is_file($file) && substr($file, -4) !== '.php') {
    // MediaWiki's own static files (skins, resources), served as a production web server serves them: with
    // Last-Modified, so that a browser's cache may keep them for a while (PHP's server sends no validator)
    $static = ['css' => 'text/css', 'js' => 'text/javascript', 'png' => 'image/png', 'gif' => 'image/gif',
               'jpg' => 'image/jpeg', 'svg' => 'image/svg+xml', 'ico' => 'image/x-icon', 'woff' => 'font/woff',
               'woff2' => 'font/woff2'];
    $ext = strtolower(pathinfo($file, PATHINFO_EXTENSION));
    if (!isset($static[$ext]) || strncmp($file, realpath($_SERVER['DOCUMENT_ROOT']) . '/', strlen(realpath($_SERVER['DOCUMENT_ROOT'])) + 1) !== 0) {
        return false;
    }
    header('Content-Type: ' . $static[$ext]);
    header('Content-Length: ' . filesize($file));
    header('Last-Modified: ' . gmdate('D, d M Y H:i:s', filemtime($file)) . ' GMT');
    readfile($file);
    return true;
}
if ($path === '/favicon.ico') {
    // the wiki has no icon (the page links one, as MediaWiki does by default): answered at once, not by a
    // whole MediaWiki request rendering its "no such page" for every page the browser loads
    http_response_code(404);
    header('Cache-Control: no-store');
    return true;
}
$entry = ($file !== false && is_file($file)) ? $file : $_SERVER['DOCUMENT_ROOT'] . '/index.php';
$_SERVER['SCRIPT_NAME'] = '/' . basename($entry);
$_SERVER['SCRIPT_FILENAME'] = $entry;
chdir(dirname($entry));
require $entry;
